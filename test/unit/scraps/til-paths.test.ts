import { normaliseDirectory, slugify, tilFileContent, tilFilePath } from '../../../src/domain/scraps/til-paths';

describe('TIL file paths (SAN-10)', () => {
  it('slugs: ASCII lowercased, punctuation stripped, spaces to dashes, Unicode letters kept', () => {
    expect(slugify('Hello, World!')).toBe('hello-world');
    expect(slugify('  B-Tree  indexes -- why?  ')).toBe('b-tree-indexes-why');
    expect(slugify('PostgreSQL 인덱스 정리')).toBe('postgresql-인덱스-정리');
    expect(slugify('Ünïcode café_notes')).toBe('Ünïcode-café-notes');
    expect(slugify('?!…')).toBe('til');
    expect(slugify('')).toBe('til');
    expect(slugify('a/b\\c..d')).toBe('abcd');
  });

  it('caps the slug at 80 code points without a trailing dash', () => {
    const s = slugify('가'.repeat(100));
    expect([...s]).toHaveLength(80);
    expect(slugify(`${'a'.repeat(79)} b`)).toBe('a'.repeat(79));
    const astral = slugify(`a${'𝒳'.repeat(100)}`);
    expect(astral.isWellFormed()).toBe(true);
    expect([...astral]).toHaveLength(80);
  });

  it('builds <directory>/<date>-<slug>[-n].md', () => {
    expect(tilFilePath('til', '2026-11-30', 'Hello World')).toBe('til/2026-11-30-hello-world.md');
    expect(tilFilePath('', '2026-11-30', 'Hello World', 2)).toBe('2026-11-30-hello-world-2.md');
    expect(tilFilePath('notes/til', '2026-11-30', '한글 제목', 3)).toBe('notes/til/2026-11-30-한글-제목-3.md');
  });

  it('normalises directories and refuses traversal', () => {
    expect(normaliseDirectory('/til//2026/')).toBe('til/2026');
    expect(normaliseDirectory('')).toBe('');
    expect(normaliseDirectory('a/../b')).toBeNull();
    expect(normaliseDirectory('./a')).toBeNull();
  });

  it('commits LF line ends with one trailing newline', () => {
    expect(tilFileContent('# T\r\nbody\r\n\r\n')).toBe('# T\nbody\n');
  });
});
