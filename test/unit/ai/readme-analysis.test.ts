/**
 * SAN-7: the local analysis discriminates on real README files: titles without
 * badges, images, links or HTML; tags a reader would pick (no badge reference names, no licence
 * boilerplate); categories that split a set of package READMEs instead of one bucket for all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { analyzeScrapLocally } from '../../../src/ai/scraps/extractive/analysis';
import { README_TOPICS } from '../../../scripts/lib/embedding-eval';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const readme = (pkg: string) => readFileSync(path.join(ROOT, 'node_modules', pkg, 'README.md'), 'utf8');

test('a badge-laden heading gives a clean title, and badge references give no tags', () => {
  const a = analyzeScrapLocally({ content: readme('es-errors') });
  expect(a.title).toBe('es-errors');
  for (const t of a.tags) expect(t).not.toMatch(/-(?:image|url|svg)$|^(?:npm|license|coverage|downloads)$/);
});

test('setext headings, linked images and HTML are not title text', () => {
  expect(analyzeScrapLocally({ content: readme('@protobufjs/codegen') }).title).toBe('@protobufjs/codegen');
  const md = [
    '<p align="center"><img src="logo.png" alt="logo"></p>',
    '',
    '# events [![Build Status](https://ci.example/badge.svg)](https://ci.example) ![npm](https://img.example/v.svg)',
    '',
    '[![downloads][downloads-image]][downloads-url] [![codecov][codecov-image]][codecov-url]',
    '',
    'The events module implements the Node.js EventEmitter for browsers: listeners subscribe to named events.',
    '',
    '## License',
    '',
    'MIT. Copyright the maintainers; see the security policy for vulnerability reports and passwords.',
    '',
    '[downloads-image]: https://img.shields.io/npm/dm/events.svg',
    '[codecov-image]: https://codecov.io/events.svg',
  ].join('\n');
  const a = analyzeScrapLocally({ content: md });
  expect(a.title).toBe('events');
  expect(a.tags).toEqual(expect.arrayContaining(['events']));
  expect(a.tags.filter((t) => /image|url|codecov|downloads|copyright|maintainers/.test(t))).toEqual([]);
  // The licence section's words ("security", "vulnerability", "passwords") do not make it Security.
  expect(a.category).not.toBe('Security');
});

test('a generic first heading ("Install") is not the title', () => {
  const a = analyzeScrapLocally({ content: '## Install\n\n```sh\nnpm i heap-lib\n```\n\nA binary heap keeps the smallest element on top for a priority queue.\n\n## Usage\n\nPush and pop.' });
  expect(a.title).toBe('A binary heap keeps the smallest element on top for a priority queue');
});

test('the categories split the README files of the evaluation set', () => {
  const pkgs = Object.values(README_TOPICS).flat();
  const counts = new Map<string, number>();
  for (const pkg of pkgs) {
    let content: string;
    try {
      content = readme(pkg);
    } catch {
      continue; // not installed
    }
    const c = analyzeScrapLocally({ content }).category;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(40);
  expect(counts.size).toBeGreaterThanOrEqual(5);
  // No single bucket holds more than half of them.
  expect(Math.max(...counts.values())).toBeLessThanOrEqual(total / 2);
  // Topics land where a reader would file them.
  expect(analyzeScrapLocally({ content: readme('pg') }).category).toBe('Data');
  expect(analyzeScrapLocally({ content: readme('fastify') }).category).toBe('Web');
  expect(analyzeScrapLocally({ content: readme('pino') }).category).toBe('Infrastructure');
});
