/** Placeholder: replaced by the harness that starts PostgreSQL 15 and the Temporal dev server. */
export default async function globalSetup(): Promise<void> {}
