// The probe below is a one-off check the maintainers asked for.
// bsadapter-lint-ignore no-sql-statement: a read-only health probe, not a table of ours
export const PROBE = "SELECT 1 FROM pg_catalog.pg_class LIMIT 1";
export const other = "fine";
// bsadapter-lint-ignore token-option
export interface AuthOptions { token?: string }
