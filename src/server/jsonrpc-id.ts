/**
 * Request ids as the text spelled them. JSON.parse reads the id 9007199254740993 as
 * 9007199254740992, and an answer must carry the id exactly as it was sent: the answers this
 * server writes itself (to a message it refuses) take the id from the text, not from the parsed
 * value. Only texts JSON.parse accepted are read here, so the scan need not check the grammar.
 */

/**
 * The JSON text of each top-level message's id: one entry for an object, one per element for an
 * array. Only the top level is read: nested values are skipped with a count of open brackets, not
 * walked into, since JSON.parse takes nesting far deeper than a recursive walk's stack (a line of
 * 50,000 `[` is one). Never throws: an id it cannot read is undefined, and its answer's id null.
 */
export function idTexts(text: string): (string | undefined)[] {
  try {
    return scanIds(text);
  } catch {
    return [];
  }
}

function scanIds(text: string): (string | undefined)[] {
  const end = text.length;
  let i = 0;
  const ws = () => {
    while (i < end && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const skipString = () => {
    // At the opening quote; JSON strings escape quotes and backslashes with a backslash.
    for (i++; i < end && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    i++;
  };
  /** Skips one value, however deep: brackets are counted, those inside strings skipped with them. */
  const skipValue = () => {
    ws();
    let depth = 0;
    do {
      const c = text[i];
      if (c === '"') skipString();
      else if (c === '{' || c === '[') {
        depth++;
        i++;
      } else if (c === '}' || c === ']') {
        depth--;
        i++;
      } else if (depth > 0) i++;
      else {
        // A number or a literal: up to the next delimiter.
        while (i < end && !',]} \t\r\n'.includes(text[i]!)) i++;
        return;
      }
    } while (depth > 0 && i < end);
  };
  /** At an object's `{`: skips it, and returns the text of its "id" member, if it has one. */
  const objectId = (): string | undefined => {
    let id: string | undefined;
    i++;
    ws();
    while (i < end && text[i] !== '}') {
      const from = i;
      skipString();
      const key = JSON.parse(text.slice(from, i)) as string;
      ws();
      i++; // ':'
      ws();
      const start = i;
      skipValue();
      // A repeated member: JSON.parse keeps the last one, and so does this.
      if (key === 'id') id = text.slice(start, i).trim();
      ws();
      if (text[i] === ',') i++;
      ws();
    }
    i++;
    return id;
  };
  ws();
  if (text[i] === '{') return [objectId()];
  if (text[i] !== '[') return [undefined];
  const ids: (string | undefined)[] = [];
  i++;
  ws();
  while (i < end && text[i] !== ']') {
    if (text[i] === '{') ids.push(objectId());
    else {
      skipValue();
      ids.push(undefined);
    }
    ws();
    if (text[i] === ',') i++;
    ws();
  }
  return ids;
}

/**
 * The id an answer to `message` may carry, as JSON text, when one could be read: a request's
 * (it has a method) string or whole-number id, digits past 2^53 - 1 included. `null` otherwise:
 * JSON-RPC answers with a null id when the id could not be told, and a malformed response's id
 * belongs to the server's own requests, not to the client's.
 */
export function answerIdText(message: unknown, idText: string | undefined): string {
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('method' in message) || idText === undefined) return 'null';
  const id = (message as { id?: unknown }).id;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) return idText;
  return 'null';
}

/** A JSON-RPC error answer as text, its id the JSON text given (`null` when none could be read). */
export function errorAnswerText(idText: string, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify({ code, message })}}`;
}
