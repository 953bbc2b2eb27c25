/** AR-6 payload codec: AES-256-GCM with key ids, rotation, pass-through of unencrypted payloads, config. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { loadConfig } from '../../../src/families';
import { ConfigError } from '../../../src/config';
import {
  AesGcmPayloadCodec,
  DEV_PAYLOAD_KEY_ID,
  ENCRYPTED_ENCODING,
  METADATA_KEY_ID,
  parsePayloadKeys,
  PayloadCodecError,
  payloadCodecFromConfig,
} from '../../../src/crypto/payload-codec';

const key = () => randomBytes(32).toString('base64');
const OLD = `old:${key()}`;
const NEW = `new:${key()}`;
const MARKER = 'SECRET-MARKER-010-1234-5678';
const plain = (v: unknown): Payload => defaultPayloadConverter.toPayload(v);
const str = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const value = (p: Payload) => defaultPayloadConverter.fromPayload(p);

describe('AesGcmPayloadCodec', () => {
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(OLD));

  it('encrypts: no plaintext in data or metadata, the key id in the metadata, a fresh IV each time', async () => {
    const [a, b] = await codec.encode([plain({ text: MARKER }), plain({ text: MARKER })]);
    for (const p of [a!, b!]) {
      expect(str(p.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(str(p.metadata?.[METADATA_KEY_ID])).toBe('old');
      expect(Buffer.from(p.data!).includes(MARKER)).toBe(false);
      expect(Object.values(p.metadata ?? {}).some((m) => str(m).includes(MARKER))).toBe(false);
    }
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('round-trips payloads with their original metadata (encoding json/plain, binary/null …)', async () => {
    const originals = [plain({ text: MARKER, n: 1 }), plain(null), plain(new Uint8Array([1, 2, 3])), plain('')];
    const decoded = await codec.decode(await codec.encode(originals));
    expect(decoded.map(value)).toEqual(originals.map(value));
    expect(decoded.map((p) => str(p.metadata?.encoding))).toEqual(originals.map((p) => str(p.metadata?.encoding)));
  });

  it('passes payloads without encryption metadata through unchanged (histories from before the codec)', async () => {
    const old = plain({ text: 'written before encryption' });
    const [out] = await codec.decode([old]);
    expect(out).toBe(old);
  });

  it('rotation: the first key encrypts; an older key listed after it still decrypts', async () => {
    const before = await new AesGcmPayloadCodec(parsePayloadKeys(OLD)).encode([plain(MARKER)]);
    const rotated = new AesGcmPayloadCodec(parsePayloadKeys(`${NEW},${OLD}`));
    expect(rotated.activeKeyId).toBe('new');
    expect((await rotated.decode(before)).map(value)).toEqual([MARKER]);
    const after = await rotated.encode([plain(MARKER)]);
    expect(str(after[0]!.metadata?.[METADATA_KEY_ID])).toBe('new');
    // A ring without the old key cannot read old payloads: a clear error, not garbage.
    await expect(new AesGcmPayloadCodec(parsePayloadKeys(NEW)).decode(before)).rejects.toThrow(PayloadCodecError);
  });

  it('refuses tampered ciphertext and a wrong key under a known id', async () => {
    const [p] = await codec.encode([plain(MARKER)]);
    const data = Buffer.from(p!.data!);
    data[data.length - 20]! ^= 1;
    await expect(codec.decode([{ ...p!, data: new Uint8Array(data) }])).rejects.toThrow('does not verify');
    const impostor = new AesGcmPayloadCodec(parsePayloadKeys(`old:${key()}`));
    await expect(impostor.decode([p!])).rejects.toThrow('does not verify');
  });
});

describe('keys from config', () => {
  it('parses kid:base64 lists and refuses bad entries', () => {
    expect([...parsePayloadKeys(`${NEW},${OLD}`).keys.keys()]).toEqual(['new', 'old']);
    expect(() => parsePayloadKeys('k1:c2hvcnQ=')).toThrow(PayloadCodecError);
    expect(() => parsePayloadKeys(`${OLD},${OLD}`)).toThrow('listed twice');
    expect(() => parsePayloadKeys('')).toThrow(PayloadCodecError);
  });

  it('PAYLOAD_CODEC_KEYS: a development key by default, required in production, validated at load', () => {
    const dev = loadConfig({}).temporal.payloadCodec;
    expect(dev.devKey).toBe(true);
    expect(payloadCodecFromConfig(dev).activeKeyId).toBe(DEV_PAYLOAD_KEY_ID);
    const prod = { NODE_ENV: 'production', GITHUB_TOKEN_KEYS: `g:${key()}`, WEBHOOK_SECRET_KEYS: `w:${key()}`, AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${key()}`, PORTAL_CALLBACK_SECRETS: 'p'.repeat(32) };
    expect(() => loadConfig(prod)).toThrow(/PAYLOAD_CODEC_KEYS: required/);
    expect(loadConfig({ ...prod, PAYLOAD_CODEC_KEYS: `${NEW},${OLD}` }).temporal.payloadCodec).toEqual({ keys: `${NEW},${OLD}`, devKey: false });
    expect(() => loadConfig({ PAYLOAD_CODEC_KEYS: 'bad' })).toThrow(ConfigError);
  });

  it('the codec server is off without an operator token, and allows the Web UI origin and its twin', () => {
    const cfg = loadConfig({ TEMPORAL_UI_URL: 'http://127.0.0.1:8233' }).temporal.codecServer;
    expect(cfg).toEqual({ operatorToken: undefined, corsOrigins: ['http://127.0.0.1:8233', 'http://localhost:8233'] });
    expect(() => loadConfig({ CODEC_SERVER_OPERATOR_TOKEN: 'short' })).toThrow(/CODEC_SERVER_OPERATOR_TOKEN/);
    expect(loadConfig({ CODEC_SERVER_CORS_ORIGINS: 'https://ui.example.com/, https://b.example.com' }).temporal.codecServer.corsOrigins).toEqual([
      'https://ui.example.com',
      'https://b.example.com',
    ]);
  });
});
