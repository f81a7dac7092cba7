/**
 * What a package entry exports, read by the TypeScript compiler the way a user's editor sees it:
 * the runtime values and the type-only names, each sorted, and the ones an editor would show
 * without documentation. A test per package compares it with the list it means to publish, so a
 * change to a public surface is always deliberate.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface PublicApi {
  values: string[];
  types: string[];
  /** Exports without a JSDoc comment, and values (functions, classes, constants) without an `@example`. */
  undocumented: string[];
}

/** `entry` is a module's URL: `new URL('./index.ts', import.meta.url)`. */
export function publicApi(url: URL): PublicApi {
  const entry = fileURLToPath(url);
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['@elicitkit/source'],
    jsx: ts.JsxEmit.ReactJSX,
    types: [],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${entry} is not a module the compiler can read`);
  const api: PublicApi = { values: [], types: [], undocumented: [] };
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const value = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnly(symbol);
    (value ? api.values : api.types).push(symbol.name);
    const documented = target.getDocumentationComment(checker).length > 0;
    const example = target.getJsDocTags(checker).some((tag) => tag.name === 'example');
    if (!documented || (value && !example)) api.undocumented.push(symbol.name);
  }
  return { values: api.values.sort(), types: api.types.sort(), undocumented: api.undocumented.sort() };
}

/** `export type { X }` and `export { type X }` publish only the type, even of a class. */
function typeOnly(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
  );
}
