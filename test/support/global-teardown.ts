/** Placeholder: replaced by the harness teardown. */
export default async function globalTeardown(): Promise<void> {}
