// The parameters of the filters API (v1 and v2), zod-checked at the edge with Mastodon's rules: a title, at least one
// valid context, warn/hide/blur, expires_in in seconds (empty or null: never), keywords_attributes[] as an array or a
// Rails hash of {id, keyword, whole_word, _destroy}.
import { z } from 'zod';
import { FILTER_ACTIONS, FILTER_CONTEXTS, type FilterContext, type KeywordChange } from '../store/filters.js';
import { idParam, railsBool } from './params.js';

const MAX_KEYWORD_CHARS = 512;
const MAX_EXPIRES_IN = 10 * 365 * 24 * 3600;

export const keyword = z
  .string()
  .trim()
  .min(1, "Keyword can't be blank")
  .max(MAX_KEYWORD_CHARS, `Keyword is too long (maximum is ${MAX_KEYWORD_CHARS} characters)`);

export const title = z.string().trim().min(1, "Title can't be blank").max(256, 'Title is too long (maximum is 256 characters)');

export const context = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [...new Set(Array.isArray(v) ? v : [v])])
  .refine((v) => v.length > 0, "Context can't be blank")
  .refine((v): v is FilterContext[] => v.every((c) => (FILTER_CONTEXTS as readonly string[]).includes(c)), 'Context None or invalid context supplied')
  .transform((v) => v as FilterContext[]);

/** Seconds from now; null (or empty) is "never expires". */
export const expiresIn = z
  .union([
    z.null(),
    z.literal(''),
    z.number().int(),
    z
      .string()
      .regex(/^\d{1,10}$/, 'expires_in must be a number of seconds')
      .transform(Number),
  ])
  .transform((v) => (v === null || v === '' ? null : v))
  .refine((v) => v === null || (v > 0 && v <= MAX_EXPIRES_IN), 'expires_in must be a positive number of seconds');

export const expiryOf = (seconds: number | null): Date | null => (seconds === null ? null : new Date(Date.now() + seconds * 1000));

const KeywordAttribute = z.object({
  id: idParam.optional(),
  keyword: keyword.optional(),
  whole_word: railsBool.optional(),
  _destroy: railsBool.optional(),
});

export const keywordsAttributes = z
  .union([z.array(KeywordAttribute), z.record(z.string(), KeywordAttribute).transform((o) => Object.values(o))])
  .refine((v) => v.length <= 100, 'keywords_attributes has at most 100 entries')
  .transform((v): KeywordChange[] => v.map((k) => ({ id: k.id, keyword: k.keyword, wholeWord: k.whole_word, destroy: k._destroy })));

export const action = z.enum(FILTER_ACTIONS);
