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
  /** Temporal namespace of the jobs. */
  namespace: string;
  uiUrl: string;
  /** The codec server's operator token (CODEC_SERVER_OPERATOR_TOKEN); undefined when unset. */
  codecToken?: string;
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
    ...(k.codecToken
      ? [
          `  codec server:     ${k.apiUrl}/codec, the Web UI's cluster-level codec endpoint: open ${k.apiUrl}/codec/session, enter the`,
          `                    token (a cookie), then turn on "Include cross-origin credentials" in the UI's Codec Server settings`,
          `  codec token:      ${k.codecToken}`,
        ]
      : []),
    ...parts.flatMap((p) => p.where),
    '',
    'The temporal CLI against this stack (paste into a shell, in this directory):',
    `  export TEMPORAL_ADDRESS=${k.temporalAddress} TEMPORAL_NAMESPACE=${k.namespace}${k.codecToken ? ` TEMPORAL_CODEC_ENDPOINT=${k.apiUrl}/codec TEMPORAL_CODEC_AUTH="Bearer ${k.codecToken}"` : ''}`,
    "  .tools/venv/bin/temporal workflow list --query 'ExecutionStatus = \"Running\"' --limit 5",
    '',
    'Try a second user (paste into another shell, in this directory):',
    `  export API=${k.apiUrl} DATABASE_URL=${dbForShell}`,
    `  TOKEN2=$(npm run -s user:create -- --name ${SECOND_USER} --token-only)`,
    ...parts.flatMap((p) => p.commands),
    '',
  ];
}
