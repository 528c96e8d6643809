// The type-check and the linter over one TypeScript program (npm run check; npm test runs it beside
// the tests). The linter's rules about promises need type information, and typescript-eslint would
// otherwise build the same program of tsconfig.json again: `tsc --noEmit` and `eslint .` apart
// took 39 s of CPU, this 26. Both always run and report; the check fails if either does.
// `npm run typecheck` and `npm run lint` remain, each on its own.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
process.chdir(root);

const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(`check: tsconfig.json: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  },
};
const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', { noEmit: true }, host);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: config.errors });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
}

const eslint = new ESLint({ cwd: root, overrideConfig: { languageOptions: { parserOptions: { programs: [program], project: null } } } });
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report) process.stdout.write(report);
const lintFailed = results.some((r) => r.errorCount > 0 || r.fatalErrorCount > 0);

const typeFailed = diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error);
if (typeFailed) console.error('check: the type-check failed');
if (lintFailed) console.error('check: the linter failed');
process.exitCode = typeFailed || lintFailed ? 1 : 0;
