// Builds src/server/http/operation-errors.generated.json: for every route of src/server/routes, the
// error codes of the statuses /openapi.json cannot tell from a route's shape (409 conflicts, 503
// unavailable), read from the code each route runs — never a hand list (thirteenth round).
//
//   npx tsx scripts/generate-operation-errors.ts           write the file
//   npx tsx scripts/generate-operation-errors.ts --check   exit 1 if the committed file is out of date
//
// How: the route's handler, its options (hooks, credential checks) and its file's
// requireOnEveryRoute/addHook checks are walked; every function or constant they name is followed
// through imports across src/, and every string literal equal to a 409 or 503 code counts, except
// where it is only compared (`error.code === 'x'` catches a code, it does not answer it). Calls
// through an object's methods (engine.storage.…) are not followed: the codes those throw are not
// listed (test/api/openapi-answers.test.ts holds the list to what operations really answer).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ERROR_CODES } from '../src/shared/errors';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTPUT = join(root, 'src/server/http/operation-errors.generated.json');
const ROUTES = join(root, 'src/server/routes');

/** The statuses this file lists codes for. */
export const LISTED_STATUSES = [409, 503];
const LISTED = new Set(Object.entries(ERROR_CODES).filter(([, e]) => LISTED_STATUSES.includes(e.status)).map(([code]) => code));
const METHODS = new Set(['get', 'post', 'put', 'delete', 'patch']);
const COMPARISONS = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

const files = new Map<string, ts.SourceFile | null>();

function sourceOf(path: string): ts.SourceFile | null {
  if (!files.has(path)) files.set(path, existsSync(path) ? ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true) : null);
  return files.get(path) ?? null;
}

function moduleFile(from: ts.SourceFile, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from.fileName), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(path)) ?? null;
}

/** The top-level statement of `file` that declares or re-exports `name`, followed to its file. */
function exported(path: string, name: string, seen = new Set<string>()): ts.Node[] {
  const file = sourceOf(path);
  if (!file || seen.has(`${path}#${name}`)) return [];
  seen.add(`${path}#${name}`);
  const found = declaredIn(file.statements, name, file);
  if (found.length > 0) return found;
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const target = moduleFile(file, statement.moduleSpecifier.text);
    if (!target) continue;
    const clause = statement.exportClause;
    if (!clause) found.push(...exported(target, name, seen));
    else if (ts.isNamedExports(clause)) {
      for (const element of clause.elements) if (element.name.text === name) found.push(...exported(target, (element.propertyName ?? element.name).text, seen));
    }
  }
  return found;
}

/** Declarations of `name` among `statements` (functions, constants, imports followed to their file). */
function declaredIn(statements: ts.NodeArray<ts.Statement>, name: string, file: ts.SourceFile): ts.Node[] {
  const found: ts.Node[] = [];
  for (const statement of statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) found.push(statement);
    else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name) && declaration.name.text === name) found.push(declaration);
    } else if (ts.isClassDeclaration(statement) && statement.name?.text === name) found.push(statement);
    else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && !statement.importClause?.isTypeOnly) {
      const bindings = statement.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) continue;
      const element = bindings.elements.find((e) => e.name.text === name && !e.isTypeOnly);
      const target = element && moduleFile(file, statement.moduleSpecifier.text);
      if (element && target) found.push(...exported(target, (element.propertyName ?? element.name).text));
    }
  }
  return found;
}

/** What an identifier names, looked up scope by scope outwards (a parameter of that name hides the rest). */
function resolveIdentifier(identifier: ts.Identifier): ts.Node[] {
  const name = identifier.text;
  const file = identifier.getSourceFile();
  for (let scope: ts.Node | undefined = identifier.parent; scope; scope = scope.parent) {
    if (ts.isFunctionLike(scope) && scope.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === name)) return [];
    if (ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope)) {
      const found = declaredIn(scope.statements, name, file);
      if (found.length > 0) return found;
    }
  }
  return [];
}

/** A use of a name, not the name of a property or declaration. */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) && parent.name === node) return false;
  if ((ts.isVariableDeclaration(parent) || ts.isFunctionDeclaration(parent) || ts.isParameter(parent)) && parent.name === node) return false;
  return !ts.isTypeNode(parent) && !ts.isTypeReferenceNode(parent);
}

function isOnlyCompared(literal: ts.Node): boolean {
  const parent = literal.parent;
  if (ts.isBinaryExpression(parent) && COMPARISONS.has(parent.operatorToken.kind)) return true;
  return ts.isCaseClause(parent);
}

/** `object.member`: the member's own value when `object` is a constant object literal, else the whole of what `object` names. */
function membersOf(object: ts.Identifier, member: string): ts.Node[] {
  return resolveIdentifier(object).map((target) => {
    let value = ts.isVariableDeclaration(target) ? target.initializer : undefined;
    while (value && (ts.isAsExpression(value) || ts.isSatisfiesExpression(value) || ts.isParenthesizedExpression(value))) value = value.expression;
    if (!value || !ts.isObjectLiteralExpression(value)) return target;
    return value.properties.find((p) => p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === member) ?? target;
  });
}

const memo = new Map<ts.Node, Set<string>>();

/** The listed codes `node` can answer with, following every name it uses. */
function codesOf(node: ts.Node): Set<string> {
  const known = memo.get(node);
  if (known) return known;
  const codes = new Set<string>();
  memo.set(node, codes); // a cycle reads what is found so far
  const visit = (child: ts.Node): void => {
    if (ts.isTypeNode(child) || ts.isInterfaceDeclaration(child) || ts.isTypeAliasDeclaration(child) || ts.isImportDeclaration(child)) return;
    if ((ts.isStringLiteral(child) || ts.isNoSubstitutionTemplateLiteral(child)) && LISTED.has(child.text) && !isOnlyCompared(child)) codes.add(child.text);
    if (ts.isPropertyAccessExpression(child) && ts.isIdentifier(child.expression)) {
      // `useCases.create(…)` of an object of use cases reaches that one member, not its siblings.
      for (const target of membersOf(child.expression, child.name.text)) for (const code of codesOf(target)) codes.add(code);
      return;
    }
    if (ts.isIdentifier(child) && isReference(child)) for (const target of resolveIdentifier(child)) for (const code of codesOf(target)) codes.add(code);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return codes;
}

function routeCall(node: ts.Node): { method: string; url: string; args: readonly ts.Expression[] } | null {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return null;
  const method = node.expression.name.text;
  const [url, ...args] = node.arguments;
  if (!METHODS.has(method) || !url || !ts.isStringLiteral(url) || !url.text.startsWith('/')) return null;
  return { method: method.toUpperCase(), url: url.text.replace(/:(\w+)/g, '{$1}'), args };
}

/** Checks a plugin runs before every one of its routes. */
function pluginChecks(file: ts.SourceFile): ts.Node[] {
  const checks: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 'requireOnEveryRoute' || name === 'addHook') checks.push(...node.arguments);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return checks;
}

/** `METHOD /path` → its 409 and 503 codes, sorted (operations without any are left out). */
export function scanOperationErrors(): Record<string, string[]> {
  const table = new Map<string, Set<string>>();
  const routeFiles = ts.sys.readDirectory(ROUTES, ['.ts']).sort();
  for (const path of routeFiles) {
    const file = sourceOf(path)!;
    const shared = new Set(pluginChecks(file).flatMap((check) => [...codesOf(check)]));
    const visit = (node: ts.Node): void => {
      const route = routeCall(node);
      if (route) {
        const codes = new Set([...shared, ...route.args.flatMap((arg) => [...codesOf(arg)])]);
        const key = `${route.method} ${route.url}`;
        table.set(key, new Set([...(table.get(key) ?? []), ...codes]));
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return Object.fromEntries(
    [...table]
      .filter(([, codes]) => codes.size > 0)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, codes]) => [key, [...codes].sort()]),
  );
}

export function renderOperationErrors(): string {
  return `${JSON.stringify(scanOperationErrors(), null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = renderOperationErrors();
  if (process.argv.includes('--check')) {
    const current = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
    if (current !== text) {
      console.error(`${OUTPUT} is out of date: run npx tsx scripts/generate-operation-errors.ts`);
      process.exit(1);
    }
  } else writeFileSync(OUTPUT, text);
}
