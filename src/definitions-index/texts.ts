/**
 * What a definition says, as one text: its name's words, its kind, its parent's words and the
 * first lines of its doc comment. Full-text relevance (BM25) and the embedding model read the
 * same text, so the two lists fused rank the same thing. Measured on Go's, CPython's and
 * TypeScript's libraries (issue 58): without the doc comment both fall back to a few hits in 40.
 */
import { identifierWords } from '../search/definitions/words.js';

/** What the text is made of: the fields of an IndexedDefinition it reads. */
export interface TextOf {
  name: string;
  kind: string;
  parent?: string | undefined;
  documentation?: string | undefined;
}

/** Lines of the doc comment kept: its summary, where what a definition does is said. */
export const DOC_TEXT_LINES = 4;
/** Characters of the doc comment kept (embedding models read about this much well). */
export const DOC_TEXT_CHARS = 400;

/**
 * A line that starts the part of a doc comment that lists parameters, results or examples:
 * JSDoc/Javadoc/Doxygen tags (`@param`, `\return`), reST fields (`:param x:`, `:returns:`),
 * Google and NumPy docstring sections (`Args:`, `Returns` over a rule of dashes), and Rust's
 * `# Examples` headings. The summary above it is what is kept.
 */
const TAG_SECTION = /^(?:[@\\](?:param|arg|argument|returns?|throws?|exception|raises?|see|example|since|deprecated|type|typedef|template|tparam|throw|yields?|property|prop|callback|author|version|link|todo|note)\b|:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|exception|var|ivar|cvar|vartype|meta)\b|(?:Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Notes?|Attributes|Keyword Args|Keyword Arguments|See Also|Warnings?|Todo|References)\s*:?\s*$|#+\s*(?:Examples?|Panics|Errors|Safety|Arguments|Returns)\b|-{3,}\s*$)/i;

/** The doc comment's summary: its first lines up to a tag section or a blank line past the first, inline markup unwrapped. */
export function docSummary(documentation: string | undefined): string {
  if (!documentation) return '';
  const kept: string[] = [];
  for (const raw of documentation.split('\n')) {
    const line = raw.trim();
    if (TAG_SECTION.test(line)) break;
    if (!line) {
      if (kept.length) break;
      continue;
    }
    kept.push(line);
    if (kept.length >= DOC_TEXT_LINES) break;
  }
  const text = kept
    .join(' ')
    // {@link Foo#bar label}, {@code x} → their words.
    .replace(/\{@\w+\s+([^}]*)\}/g, '$1')
    // Markdown and reST emphasis and code marks.
    .replace(/[`*]+|:\w+:`?/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > DOC_TEXT_CHARS ? text.slice(0, DOC_TEXT_CHARS).replace(/\s+\S*$/, '') : text;
}

/**
 * The text of a definition: `to upper (function): ToUpper returns s with all Unicode letters
 * mapped to their upper case.`, `read all (method of buffered reader): …`.
 */
export function definitionText(d: TextOf): string {
  const name = identifierWords(d.name).join(' ') || d.name;
  const parent = d.parent ? identifierWords(d.parent).join(' ') : '';
  const head = `${name} (${d.kind}${parent ? ` of ${parent}` : ''})`;
  const doc = docSummary(d.documentation);
  return doc ? `${head}: ${doc}` : head;
}
