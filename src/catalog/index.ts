// Standard names known to Placement, built into the project (see the JSON files for their source versions).
import traitsFile from './standard-traits.json' with { type: 'json' };
import classesFile from './standard-resource-classes.json' with { type: 'json' };

/** The 345 standard traits of os-traits 2.9.0, sorted. */
export const STANDARD_TRAITS: readonly string[] = traitsFile.traits;
/** The 21 standard resource classes of os-resource-classes 1.1.0, in Placement's order (index = id). */
export const STANDARD_RESOURCE_CLASSES: readonly string[] = classesFile.resourceClasses;

const standardTraitSet = new Set(STANDARD_TRAITS);
const standardClassSet = new Set(STANDARD_RESOURCE_CLASSES);

/** Placement gives custom resource classes ids from this number on. */
export const FIRST_CUSTOM_CLASS_ID = 10000;

export const isStandardTrait = (name: string) => standardTraitSet.has(name);
export const isStandardResourceClass = (name: string) => standardClassSet.has(name);
