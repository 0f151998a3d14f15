import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compactKey,
  searchKey,
  SEARCH_MAX_LENGTH,
  searchRange,
  similarity,
  similarPieces,
  successor,
  trigramSimilarity,
} from '../../src/domain/search.js';

describe('searchKey', () => {
  it('lower-cases, drops accents and folds white space', () => {
    assert.equal(searchKey('Müller'), 'muller');
    assert.equal(searchKey('  ÅSA  de   la Peña '), 'asa de la pena');
    assert.equal(searchKey('Zoë'), searchKey('ZOE'));
  });

  it('meets the capital forms of ß, dotless ı, final sigma and full-width letters', () => {
    assert.equal(searchKey('Straße'), searchKey('STRASSE'));
    assert.equal(searchKey('Yıldız'), searchKey('YILDIZ'));
    assert.equal(searchKey('Παπαστράτος'), searchKey('ΠΑΠΑΣΤΡΑΤΟΣ'));
    assert.ok(searchKey('Παπαστράτος')?.startsWith(searchKey('ΠΑΠΑΣ') as string));
    assert.equal(searchKey('Ｍüller'), 'muller');
    assert.equal(searchKey('ΠΑΠΑΣ'), 'παπασ');
  });

  it('writes letters that are no base letter with a mark as the plain letters callers type', () => {
    assert.equal(searchKey('Ødegaard'), 'odegaard');
    assert.equal(searchKey('Łęcki'), 'lecki');
    assert.equal(searchKey('Æsir Œuvre'), 'aesir oeuvre');
    assert.equal(searchKey('Đorđević'), 'dordevic');
    assert.equal(searchKey('Þórsdóttir'), 'thorsdottir');
    assert.equal(searchKey('GROẞ'), 'gross');
    assert.equal(searchKey('Ðħŧ'), 'dht');
  });

  it('has no key for no name', () => {
    assert.equal(searchKey(null), null);
    assert.equal(searchKey('   '), null);
  });
});

describe('successor', () => {
  it('is after every string the prefix starts and before every other after the prefix', () => {
    const to = successor('mul');
    assert.equal(to, 'mum');
    for (const key of ['mul', 'muller', 'mul\u{10ffff}\u{10ffff}']) assert.ok(key >= 'mul' && key < to, key);
    assert.ok(!('mum' < to));
  });

  it('skips the surrogates and carries past the last code point', () => {
    assert.equal(successor('a\ud7ff'), 'a\ue000');
    assert.equal(successor('a\u{10ffff}'), 'b');
    assert.equal(successor('a\u{10ffff}\u{10ffff}'), 'b');
  });

  it('is, for text made only of the last code point, a string of more of them than any key is long', () => {
    const beyond = '\u{10ffff}'.repeat(SEARCH_MAX_LENGTH + 1);
    assert.equal(successor('\u{10ffff}'), beyond);
    assert.equal(successor('\u{10ffff}'.repeat(3)), beyond);
    assert.ok('\u{10ffff}'.repeat(SEARCH_MAX_LENGTH) < beyond);
  });
});

describe('searchRange', () => {
  it('matches names whole below three characters, and by their start from three on', () => {
    assert.equal(searchRange('Li')?.whole, true);
    assert.equal(searchRange(' ø ')?.whole, true);
    assert.equal(searchRange('Lin')?.whole, false);
  });

  it('matches an id only when the text can be one', () => {
    assert.equal(searchRange('1234')?.id, '1234');
    assert.equal(searchRange('0123')?.id, undefined);
    assert.equal(searchRange('999999999999999')?.id, '999999999999999');
    for (const text of ['12 Main', 'Main 12', '1234567890123456', '12a', 'a12']) {
      assert.equal(searchRange(text)?.id, undefined, text);
    }
    assert.equal(searchRange(' C-1 ')?.exact, 'C-1');
    assert.equal(searchRange(' \t '), undefined);
  });
});

describe('compactKey', () => {
  it('drops apostrophes, hyphens and spaces, and is kept only where it differs from the key', () => {
    assert.equal(compactKey("O'Brien"), 'obrien');
    assert.equal(compactKey('D’Angelo'), 'dangelo');
    assert.equal(compactKey('Jean-Luc'), 'jeanluc');
    assert.equal(compactKey('de la Peña'), 'delapena');
    assert.equal(compactKey('Núñez'), null);
    assert.equal(compactKey("'-"), null);
    assert.equal(compactKey(null), null);
  });
});

describe('searchRange, for callers', () => {
  it('takes two words or more each as the start of a name', () => {
    assert.deepEqual(
      searchRange(' Priya  Núñez ')?.words?.map((w) => w.from),
      ['priya', 'nunez'],
    );
    assert.equal(searchRange('priya')?.words, undefined);
    assert.deepEqual(
      searchRange('priya - nunez')?.words?.map((w) => w.from),
      ['priya', 'nunez'],
    );
    assert.equal(searchRange('li wu')?.words?.[0]?.whole, true);
    assert.deepEqual(
      searchRange('ana maria de la cruz')?.words?.map((w) => w.from),
      ['ana', 'maria', 'de', 'la'],
    );
  });

  it('matches the compact keys with the text as they are written', () => {
    assert.equal(searchRange("o'brien")?.compact?.from, 'obrien');
    assert.equal(searchRange('obrien')?.compact?.from, 'obrien');
    assert.equal(searchRange('.*')?.compact, undefined);
  });

  it('offers similar names for one word of letters of four or more', () => {
    assert.equal(searchRange('Nunes')?.similar, 'nunes');
    assert.equal(searchRange('nune')?.similar, 'nune');
    assert.equal(searchRange('nun')?.similar, undefined);
    assert.equal(searchRange('nunes priya')?.similar, undefined);
    assert.equal(searchRange('a@b.example')?.similar, undefined);
    assert.equal(searchRange('12345')?.similar, undefined);
  });
});

describe('similarity', () => {
  it('forgives one typo in a name of five letters or more', () => {
    assert.ok(similarity('nunes', 'nunez'));
    assert.ok(similarity('nuez', 'nunez'));
    assert.ok(similarity('nunnez', 'nunez'));
    assert.ok(similarity('munez', 'nunez'));
  });

  it('forgives no typo in a name of four letters, nor two typos, nor the name itself (a prefix finds it)', () => {
    assert.equal(similarity('crux', 'cruz'), undefined);
    assert.equal(similarity('nunis', 'nunez'), undefined);
    assert.equal(similarity('nuenz', 'nunez'), undefined);
    assert.equal(similarity('nunez', 'nunez'), undefined);
    assert.equal(similarity('nunes', null), undefined);
  });

  it('finds exactly the names one letter changed, added or left out, of every pair of short words', () => {
    // Every word of three to seven letters a and b, against a plain edit distance of at most one.
    const words = [3, 4, 5, 6, 7].flatMap((length) =>
      Array.from({ length: 2 ** length }, (_, n) =>
        n.toString(2).padStart(length, '0').replace(/0/g, 'a').replace(/1/g, 'b'),
      ),
    );
    const oneEditApart = (a: string, b: string) => {
      if (a.length === b.length) return [...a].filter((c, i) => c !== b[i]).length === 1;
      const [short, long] = a.length < b.length ? [a, b] : [b, a];
      if (long.length - short.length !== 1) return false;
      return Array.from({ length: long.length }, (_, i) => long.slice(0, i) + long.slice(i + 1)).includes(short);
    };
    const wrong: string[] = [];
    for (const typed of words)
      for (const name of words) {
        const expected = name.length >= 5 && oneEditApart(typed, name);
        if ((similarity(typed, name) !== undefined) !== expected) wrong.push(`${typed} ${name}`);
      }
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('ranks closer names first, as pg_trgm does', () => {
    assert.equal(trigramSimilarity('nunes', 'nunez'), 0.5);
    // pg_trgm: 9 trigrams shared of 12 ("  l" … "ist", and "st ", "stt", "tt ").
    assert.equal(trigramSimilarity('lindqvistt', 'lindqvist'), 0.75);
    assert.ok((similarity('lindqvistt', 'lindqvist') as number) > (similarity('nunes', 'nunez') as number));
  });
});

describe('similarPieces', () => {
  it('splits the padded text into pieces of three or more, of which one typo breaks one at most', () => {
    assert.deepEqual(similarPieces('nuez'), ['^^nu', 'ez$$']);
    assert.deepEqual(similarPieces('nunes'), ['^^n', 'une', 's$$']);
    assert.deepEqual(similarPieces('lindqvist'), ['^^l', 'indq', 'vis', 't$$']);
    for (const word of ['nunes', 'lindqvistsson', 'abcdef']) {
      assert.equal(similarPieces(word).join(''), `^^${word}$$`);
      assert.ok(similarPieces(word).every((p) => p.length >= 3));
    }
  });
});
