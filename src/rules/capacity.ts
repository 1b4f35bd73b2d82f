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

/** The largest integer the API answers: GraphQL's Int, and Placement's integer columns (db.MAX_INT). */
export const MAX_INT = 2147483647;

/** Capacity: int((total - reserved) * allocation_ratio) (never negative: reserved <= total). */
export const capacityOf = (inv: CapacityFields) => Math.trunc((inv.total - inv.reserved) * inv.allocationRatio);

/**
 * Whether the API can answer an inventory's capacity. Placement 8.0.0 stores any allocation_ratio up to
 * 3.4e38 and answers capacities past MAX_INT (it has Python's integers); an Int cannot carry them, so
 * such an inventory is refused before it is stored. Usage never passes capacity, so it stays in range too.
 */
export const capacityInRange = (inv: CapacityFields) => capacityOf(inv) <= MAX_INT;

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
