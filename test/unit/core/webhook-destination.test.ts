/** SSRF guard of webhook URLs and Standard Webhooks signing, against the reference implementation. */
import { Webhook } from 'standardwebhooks';
import { checkDestination, DestinationRefusedError, isPublicAddress } from '../../../src/core/webhook-destination';
import { newWebhookSecret, webhookHeaders } from '../../../src/core/webhook-signing';

const publicDns = async () => [{ address: '93.184.216.34', family: 4 }];

describe('checkDestination outside dev mode', () => {
  const strict = { allowPrivate: false, resolve: publicDns };

  it.each([
    ['http://example.com/hook', /https/],
    ['ftp://example.com/hook', /https/],
    ['https://user:pw@example.com/hook', /credentials/],
    ['https://user@example.com/hook', /credentials/],
    ['https://127.0.0.1/hook', /non-public/],
    ['https://10.1.2.3/hook', /non-public/],
    ['https://172.16.0.1/hook', /non-public/],
    ['https://192.168.1.1/hook', /non-public/],
    ['https://169.254.169.254/latest/meta-data', /non-public/],
    ['https://100.64.0.1/hook', /non-public/],
    ['https://0.0.0.0/hook', /non-public/],
    ['https://[::1]/hook', /non-public/],
    ['https://[fd00::1]/hook', /non-public/],
    ['https://[fe80::1]/hook', /non-public/],
    ['https://[::ffff:127.0.0.1]/hook', /non-public/],
    ['not a url', /absolute/],
  ])('refuses %s', async (url, reason) => {
    await expect(checkDestination(url, strict)).rejects.toThrow(reason);
  });

  it('refuses a name that resolves to a private address (any of them)', async () => {
    const rebinding = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    await expect(checkDestination('https://hooks.example.com/x', { allowPrivate: false, resolve: rebinding })).rejects.toBeInstanceOf(DestinationRefusedError);
  });

  it('refuses a name that does not resolve', async () => {
    const failing = async () => { throw new Error('ENOTFOUND'); };
    await expect(checkDestination('https://nowhere.invalid/x', { allowPrivate: false, resolve: failing })).rejects.toThrow(/does not resolve/);
  });

  it('accepts https to a public address and pins it', async () => {
    const dest = await checkDestination('https://hooks.example.com/x', strict);
    expect(dest).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(dest.url.hostname).toBe('hooks.example.com');
  });

  it('classifies addresses', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('127.0.0.5')).toBe(false);
    expect(isPublicAddress('nonsense')).toBe(false);
  });
});

describe('checkDestination in dev mode', () => {
  it('accepts http and loopback, still refuses credentials', async () => {
    await expect(checkDestination('http://127.0.0.1:8080/x', { allowPrivate: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkDestination('http://a:b@127.0.0.1:8080/x', { allowPrivate: true })).rejects.toThrow(/credentials/);
  });
});

describe('Standard Webhooks signatures', () => {
  it('verify with the reference implementation, under each of two secrets', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'async_job.completed', data: { id: 'x' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([a, b], 'msg_1', ts, body);
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(body.replace('x', 'y'), headers)).toThrow();
  });
});
