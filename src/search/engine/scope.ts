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
  private readonly regexes: RegExp[];
  private readonly constraint: string;

  /** `sources`: the regexes themselves, when not the globs' (then restricted even when empty). */
  constructor(globs: readonly string[], given?: readonly string[]) {
    const sources = given ?? globs.map(repoGlobToRegex);
    this.globs = globs;
    this.restricted = given !== undefined || globs.length > 0;
    this.regexes = sources.map((re) => new RegExp(re));
    // No repository at all: a name no repository has (Zoekt's names are never empty).
    this.constraint = sources.length ? q.render(q.or(...sources.map(q.repo))) : q.render(q.repo('^$'));
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
    return !this.restricted || this.regexes.some((re) => re.test(repo));
  }

  /**
   * The query with the scope ANDed at its top level (our queries never have a top-level `or`).
   * Always appended, never "already there": user text can end with the same characters.
   */
  confine(query: string): string {
    if (!this.restricted) return query;
    return query.trim() === '' ? this.constraint : `${query} ${this.constraint}`;
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

  describe(): string {
    return this.globs.map((g) => `'${g}'`).join(', ');
  }
}
