/**
 * The repositories an operator allows (`--allow-repos`). The constraint is ANDed at the top
 * level of every query sent to Zoekt, outside anything a user wrote (their query text is always
 * one balanced group), and every answer is checked again against it, so neither query text nor
 * arguments can reach another repository.
 */
import { ToolError } from '../errors.js';
import * as q from '../zoekt/query.js';
import { repoGlobToRegex } from './globs.js';

export class RepoScope {
  readonly globs: readonly string[];
  private readonly regexes: RegExp[];
  private readonly constraint: string;

  constructor(globs: readonly string[]) {
    this.globs = globs;
    const sources = globs.map(repoGlobToRegex);
    this.regexes = sources.map((re) => new RegExp(re));
    this.constraint = q.render(q.or(...sources.map(q.repo)));
  }

  /** A scope that allows everything, for a server started without --allow-repos. */
  static readonly ALL = new RepoScope([]);

  get restricted(): boolean {
    return this.globs.length > 0;
  }

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
