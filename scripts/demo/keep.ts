/** What `npm run demo -- --keep` prints: where everything runs, and the commands a second user pastes. */
import { redactUrl } from '../lib/net';

/** The login of the second user in the printed commands. */
export const SECOND_USER = 'alice';
/** The printed commands' `curl` header of the second user's token (`$TOKEN2`). */
export const SECOND_USER_AUTH = '-H "authorization: Bearer $TOKEN2"';
/** The printed commands' `curl` header of a JSON body. */
export const JSON_BODY = "-H 'content-type: application/json'";

/** Where the stack runs and the demo user's token. */
export interface KeepInfo {
  apiUrl: string;
  token: string;
  dbUrl: string;
  /** Connections of the embedded database; undefined with DATABASE_URL. */
  maxConnections?: number;
  temporalAddress: string;
  uiUrl: string;
}

/**
 * The --keep block: one `label: value` line each (the parts' own after the stack's), then the
 * commands (no leading `$`, copy-pasteable; the stack's, then the parts'), then an empty line.
 */
export function keepBlock(k: KeepInfo, parts: readonly { where: string[]; commands: string[] }[]): string[] {
  const dbForShell = new URL(k.dbUrl).password ? '"$DATABASE_URL"  # the one you started the demo with' : `'${k.dbUrl}'`;
  return [
    '--keep: everything stays up; press Ctrl-C to stop.',
    `  API:              ${k.apiUrl}  (docs ${k.apiUrl}/docs)`,
    `  demo user token:  ${k.token}`,
    `  database:         ${redactUrl(k.dbUrl)}${k.maxConnections !== undefined ? `  (embedded PGlite, up to ${k.maxConnections} connections)` : ''}`,
    `  Temporal:         ${k.temporalAddress}, Web UI ${k.uiUrl}`,
    ...parts.flatMap((p) => p.where),
    '',
    'Try a second user (paste into another shell, in this directory):',
    `  export API=${k.apiUrl} DATABASE_URL=${dbForShell}`,
    `  TOKEN2=$(npm run -s user:create -- --name ${SECOND_USER} --token-only)`,
    ...parts.flatMap((p) => p.commands),
    '',
  ];
}
