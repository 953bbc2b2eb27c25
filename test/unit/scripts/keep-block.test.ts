/**
 * The `npm run demo -- --keep` block: the commands it prints are complete for a second shell (the
 * temporal CLI's address, namespace and codec endpoint; the codec server's operator token).
 */
import { keepBlock, type KeepInfo } from '../../../scripts/demo/keep';

const INFO: KeepInfo = {
  apiUrl: 'http://127.0.0.1:3000',
  token: 'tok_demo',
  dbUrl: 'postgresql://postgres@127.0.0.1:5432/postgres',
  temporalAddress: '127.0.0.1:7233',
  namespace: 'default',
  uiUrl: 'http://127.0.0.1:8233',
  codecToken: 'c'.repeat(64),
};

describe('keepBlock', () => {
  test('exports the temporal CLI environment (address, namespace, codec endpoint and auth)', () => {
    const exportLine = keepBlock(INFO, []).find((l) => l.includes('export TEMPORAL_ADDRESS='));
    expect(exportLine).toBe(
      `  export TEMPORAL_ADDRESS=127.0.0.1:7233 TEMPORAL_NAMESPACE=default TEMPORAL_CODEC_ENDPOINT=http://127.0.0.1:3000/codec TEMPORAL_CODEC_AUTH="Bearer ${'c'.repeat(64)}"`,
    );
  });

  test('prints the codec token and session page when a token is set, and no codec lines without one', () => {
    const withToken = keepBlock(INFO, []).join('\n');
    expect(withToken).toContain(`codec token:      ${'c'.repeat(64)}`);
    expect(withToken).toContain('http://127.0.0.1:3000/codec/session');
    const { codecToken: _omitted, ...noToken } = INFO;
    const without = keepBlock(noToken, []).join('\n');
    expect(without).not.toContain('codec');
    expect(without).toContain('export TEMPORAL_ADDRESS=127.0.0.1:7233 TEMPORAL_NAMESPACE=default\n');
  });

  test("the parts' lines follow the stack's", () => {
    const lines = keepBlock(INFO, [{ where: ['  portal emulator: http://127.0.0.1:4010'], commands: ['  curl "$API/portal/link"'] }]);
    expect(lines.indexOf('  portal emulator: http://127.0.0.1:4010')).toBeGreaterThan(lines.findIndex((l) => l.startsWith('  Temporal:')));
    expect(lines.indexOf('  curl "$API/portal/link"')).toBeGreaterThan(lines.findIndex((l) => l.includes('user:create')));
  });
});
