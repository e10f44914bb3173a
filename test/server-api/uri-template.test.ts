import { describe, expect, test } from 'vitest';
import { UriTemplate } from 'keel-mcp/server';

describe('UriTemplate (RFC 6570: url-template expands, Keel matches)', () => {
  test('matches and expands simple, reserved and query expressions', () => {
    const simple = new UriTemplate('test://template/{id}/data');
    expect(simple.variables).toEqual(['id']);
    expect(simple.match('test://template/123/data')).toEqual({ id: '123' });
    expect(simple.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
    expect(simple.match('test://template/a%7e/data')).toEqual({ id: 'a~' });
    expect(simple.expand({ id: 'a b' })).toBe('test://template/a%20b/data');
    const reserved = new UriTemplate('file:///{+path}');
    expect(reserved.match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    const query = new UriTemplate('users://{id}/profile{?fields,lang}');
    expect(query.variables).toEqual(['id', 'fields', 'lang']);
    expect(query.match('users://7/profile?fields=name&lang=en')).toEqual({
      id: '7',
      fields: 'name',
      lang: 'en',
    });
    expect(query.match('users://7/profile')).toEqual({ id: '7' });
  });

  test('rejects what the template cannot produce', () => {
    const simple = new UriTemplate('test://template/{id}/data');
    expect(simple.match('test://template/12/3/data')).toBeUndefined();
    expect(simple.match('test://other/1/data')).toBeUndefined();
    expect(simple.match('test://template/1/data/more')).toBeUndefined();
  });
});

describe('query expressions', () => {
  test('are optional, in any order, repeated names become lists, unknown names do not match', () => {
    const t = new UriTemplate('search://{index}{?q,page}{&lang}');
    expect(t.match('search://books?page=2&q=whale')).toEqual({ index: 'books', page: '2', q: 'whale' });
    expect(t.match('search://books?lang=en&lang=no')).toEqual({ index: 'books', lang: ['en', 'no'] });
    expect(t.match('search://books?q=a%20b')).toEqual({ index: 'books', q: 'a b' });
    expect(t.match('search://books')).toEqual({ index: 'books' });
    expect(t.match('search://books?other=1')).toBeUndefined();
    expect(t.expand({ index: 'books', q: 'whale', lang: 'en' })).toBe('search://books?q=whale&lang=en');
  });
});
