/**
 * Every symbol a Zoekt index holds for one repository, read from zoekt-webserver's JSON API with
 * `sym:.` queries, a top-level folder at a time (one answer for a whole tree would run to
 * hundreds of megabytes). What the tests compare with the declarations a language's own parser
 * reads from the files.
 */
export interface IndexedSymbol {
  path: string;
  /** 1-based. */
  line: number;
  name: string;
  /** The parser's kind word as Zoekt stores it. */
  kind: string;
  parent: string;
  parentKind: string;
  language: string;
}

interface Reply {
  Result: {
    Files: { FileName: string; Language: string; ChunkMatches: { Ranges: { Start: { LineNumber: number } }[]; SymbolInfo: ({ Sym: string; Kind: string; Parent: string; ParentKind: string } | null)[] | null }[] | null }[] | null;
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function indexedSymbols(zoektUrl: string, repo: string, files: string[]): Promise<IndexedSymbol[]> {
  const tops = [...new Set(files.filter((f) => f.includes('/')).map((f) => f.slice(0, f.indexOf('/'))))].sort();
  const queries = [...tops.map((t) => `file:^${escape(t)}/`), '-file:/'];
  const out: IndexedSymbol[] = [];
  for (const q of queries) {
    const res = await fetch(`${zoektUrl}/api/search`, {
      method: 'POST',
      body: JSON.stringify({
        Q: `r:^${escape(repo)}$ sym:. ${q}`,
        Opts: { ChunkMatches: true, NumContextLines: 0, MaxDocDisplayCount: 1_000_000, ShardMaxMatchCount: 100_000_000, TotalMaxMatchCount: 100_000_000, MaxWallTime: 120e9 },
      }),
    });
    if (!res.ok) throw new Error(`${zoektUrl}/api/search ${q}: HTTP ${res.status}`);
    const reply = (await res.json()) as Reply;
    for (const f of reply.Result.Files ?? []) {
      for (const c of f.ChunkMatches ?? []) {
        c.Ranges.forEach((r, i) => {
          const s = c.SymbolInfo?.[i];
          if (s) out.push({ path: f.FileName, line: r.Start.LineNumber, name: s.Sym, kind: s.Kind, parent: s.Parent, parentKind: s.ParentKind, language: f.Language });
        });
      }
    }
  }
  return out;
}
