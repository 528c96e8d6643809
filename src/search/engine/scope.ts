/**
 * The repositories an operator allows (`--allow-repos`). The constraint is ANDed at the top
 * level of every query sent to Zoekt, outside anything a user wrote (their query text is always
 * one balanced group), and every answer is checked again against it, so neither query text nor
 * arguments can reach another repository.
 */
import { ToolError } from '../../errors.js';
import * as q from '../../zoekt/query.js';
import { repoGlobToRegex } from '../../patterns/globs.js';

export class RepoScope {
  readonly globs: readonly string[];
  readonly restricted: boolean;
  /**
   * What tells this scope from another, for cursors and cached answers: its globs, and for a
   * narrowed scope the outer one's too, so the same globs under another outer scope differ.
   */
  readonly tag: readonly string[];
  private readonly regexes: RegExp[];
  /** The regexes as written, for Zoekt (RegExp.source escapes what RE2 need not see escaped). */
  private readonly sources: readonly string[];
  private readonly constraint: string;
  /** The scope this one narrows (the server's, under a caller's): both must allow a repository. */
  private outer?: RepoScope;
  /** What set this scope, as messages name it: the server's option, or a caller's sign-in. */
  origin = '--allow-repos';

  /** `sources`: the regexes themselves, when not the globs' (then restricted even when empty). */
  constructor(globs: readonly string[], given?: readonly string[]) {
    const sources = given ?? globs.map(repoGlobToRegex);
    this.globs = globs;
    this.restricted = given !== undefined || globs.length > 0;
    this.regexes = sources.map((re) => new RegExp(re));
    this.sources = sources;
    // No repository at all: a name no repository has (Zoekt's names are never empty).
    this.constraint = sources.length ? q.render(q.or(...sources.map(q.repo))) : q.render(q.repo('^$'));
    this.tag = globs;
  }

  /**
   * This scope further confined to `inner` (a caller's repositories under the server's
   * --allow-repos): a repository must be allowed by both, and a query carries both constraints.
   * Without a restriction of its own, this scope is `inner` itself.
   */
  narrow(inner: RepoScope): RepoScope {
    if (!this.restricted) return inner;
    const scope = new RepoScope(inner.globs, inner.sources);
    scope.outer = this;
    (scope as { tag: readonly string[] }).tag = [...this.tag.map((g) => `outer:${g}`), ...inner.tag];
    if (this.names) scope.names = this.names.filter((n) => scope.allows(n));
    scope.origin = inner.origin;
    return scope;
  }

  /** A scope that allows everything, for a server started without --allow-repos. */
  static readonly ALL = new RepoScope([]);

  /**
   * Exactly these repositories (the local serve command's list). A bare glob would also match
   * names ending in `/name`; these are anchored at both ends.
   */
  static exactly(names: readonly string[]): RepoScope {
    const scope = new RepoScope(
      names.map((n) => n.replace(/[\\*?[]/g, '\\$&')),
      names.map((n) => `^${q.escapeRegex(n)}$`),
    );
    scope.names = names;
    return scope;
  }

  /** The repositories of an exact scope, by name: each one is expected in the index. */
  names?: readonly string[];

  allows(repo: string): boolean {
    return (!this.restricted || this.regexes.some((re) => re.test(repo))) && (this.outer?.allows(repo) ?? true);
  }

  /**
   * The query with the scope ANDed at its top level (our queries never have a top-level `or`).
   * Always appended, never "already there": user text can end with the same characters.
   */
  confine(query: string): string {
    if (!this.restricted) return query;
    const own = query.trim() === '' ? this.constraint : `${query} ${this.constraint}`;
    return this.outer ? this.outer.confine(own) : own;
  }

  /** FORBIDDEN for a repository outside the scope. */
  check(repo: string): void {
    if (this.allows(repo)) return;
    throw new ToolError(
      'FORBIDDEN',
      `repository '${repo}' is outside the repositories this server may read`,
      `This server is confined to ${this.describe()}. Call list_repos to see the repositories you can use.`,
    );
  }

  /** For zero-result hints: what a confined server cannot see, so an empty answer is not taken as "absent". */
  note(): string | undefined {
    return this.restricted ? `this server only searches repositories matching ${this.describe()} (list_repos shows them)` : undefined;
  }

  /**
   * The globs as messages name them. A narrowed (caller's) scope names only the caller's own:
   * the server's --allow-repos is the operator's, and a caller learns of it nothing but what
   * its own repositories show.
   */
  describe(): string {
    return this.globs.map((g) => `'${g}'`).join(', ') || 'no repository';
  }
}
