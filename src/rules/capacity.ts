// Placement's capacity rule (objects/inventory.py, objects/allocation.py and the SQL of
// objects/research_context.py): what an inventory can give in all, and whether an amount fits
// it now. In-memory code calls the functions; SQL builders use the fragments, which say the same.

/** The inventory fields capacity depends on. */
export interface CapacityFields {
  total: number;
  reserved: number;
  allocationRatio: number;
}

/** The unit constraints of an inventory. */
export interface UnitFields {
  minUnit: number;
  maxUnit: number;
  stepSize: number;
}

/** Capacity: int((total - reserved) * allocation_ratio) (never negative: reserved <= total). */
export const capacityOf = (inv: CapacityFields) => Math.trunc((inv.total - inv.reserved) * inv.allocationRatio);

/** The largest capacity the API can answer: GraphQL's Int is 32-bit, as Placement's MAX_INT. */
export const MAX_ANSWERABLE_CAPACITY = 2147483647;

/** Whether an inventory's capacity can be answered (total 2147483647 at ratio 2 cannot). */
export const capacityAnswerable = (inv: CapacityFields) => capacityOf(inv) <= MAX_ANSWERABLE_CAPACITY;

/** Whether an amount is allowed by min_unit, max_unit and step_size, whatever is used. */
export const fitsUnits = (inv: UnitFields, amount: number) => amount >= inv.minUnit && amount <= inv.maxUnit && amount % inv.stepSize === 0;

/** Whether an inventory with this capacity and usage can give `amount` now. */
export const fits = (inv: UnitFields & { capacity: number; used: number }, amount: number) => inv.used + amount <= inv.capacity && fitsUnits(inv, amount);

/**
 * The same capacity over an inventories row aliased `alias`, in SQL. Left unrounded, as Placement's
 * SQL leaves it: an integer usage is at most the product exactly when it is at most its integer part.
 */
export const capacitySql = (alias: string) => `((${alias}.total - ${alias}.reserved) * ${alias}.allocation_ratio)`;

/** fits() in SQL for the inventories row `alias` and the usage expression `used`; binds the amount three times (`?`). */
export const fitsSql = (alias: string, used: string) =>
  `? BETWEEN ${alias}.min_unit AND ${alias}.max_unit AND ? % ${alias}.step_size = 0 AND ${used} + ? <= ${capacitySql(alias)}`;
