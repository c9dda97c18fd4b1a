// Builds src/server/http/operation-errors.generated.json: for every route of src/server/routes, the
// error codes of the statuses /openapi.json cannot tell from a route's shape (409 conflicts, 422
// refusals of the program's rules, 503 unavailable), read from the code each route runs — never a
// hand list (thirteenth and fourteenth rounds).
//
//   npx tsx scripts/generate-operation-errors.ts           write the file
//   npx tsx scripts/generate-operation-errors.ts --check   exit 1 if the committed file is out of date
//
// How: the route's handler, its options (hooks, credential checks) and its file's
// requireOnEveryRoute/addHook checks are walked; every function or constant they name is followed
// through imports across src/, and every string literal equal to a listed code counts, except where
// it is only compared (`error.code === 'x'` catches a code, it does not answer it), or inside a
// function handed to setImmediate/setTimeout and not awaited (run after the reply: a restart's
// failure is logged; isDeferredCallback).
// Calls through an object (`engine.payments.charge`, `control.unpair`) are followed with
// TypeScript's checker to the member they reach: a class's or object literal's own member, or, for
// a member of an interface, every implementation of it in src/ (classes that implement the
// interface, functions declared to return it, assignments to it). A constant table read with a
// parameter as key (`NAME_TAKEN[table]`) counts, at each call, only the entry its argument picks.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ERROR_CODES } from '../src/shared/errors';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTPUT = join(root, 'src/server/http/operation-errors.generated.json');
const SRC = join(root, 'src');
const ROUTES = join(SRC, 'server/routes');

/** The statuses this file lists codes for. */
export const LISTED_STATUSES = [409, 422, 503];
const LISTED = new Set(Object.entries(ERROR_CODES).filter(([, e]) => LISTED_STATUSES.includes(e.status)).map(([code]) => code));
const METHODS = new Set(['get', 'post', 'put', 'delete', 'patch']);
const COMPARISONS = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

// ---------------------------------------------------------------------------------------------
// The program: the server, the core and what they share, parsed once, with a checker for what a
// member access reaches.

let program: ts.Program | null = null;
/** Libraries whose typings are read as empty (below). */
const UNTYPED = /\/node_modules\/(kysely|typebox)\//;

function theProgram(): ts.Program {
  if (!program) {
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    const options = { ...config?.options, types: [] };
    // Parent links on every node: the walk looks outwards for scopes and calls.
    const host = ts.createCompilerHost(options, true);
    const getSourceFile = host.getSourceFile.bind(host);
    // Kysely's and TypeBox's typings read as empty: typing their query chains and schemas took
    // most of the generator's time, and no member of theirs is followed anyway (Fastify's stay: they
    // type a plugin's options, `{ engine, control }`).
    host.getSourceFile = (file, ...rest) => (UNTYPED.test(file) ? ts.createSourceFile(file, '', ts.ScriptTarget.Latest, true) : getSourceFile(file, ...rest));
    // What a route can run: the server, the core and what they share (their imports come along,
    // not the screens' or Electron's).
    const roots = ['server', 'core', 'shared'].flatMap((dir) => ts.sys.readDirectory(join(SRC, dir), ['.ts']));
    program = ts.createProgram(roots, options, host);
  }
  return program;
}

const checker = (): ts.TypeChecker => theProgram().getTypeChecker();

function sourceOf(path: string): ts.SourceFile | null {
  return theProgram().getSourceFile(path) ?? null;
}

/** Code of this project (not a library's declarations): the only code whose codes can count. */
function isOurs(node: ts.Node): boolean {
  const file = node.getSourceFile();
  return file.fileName.startsWith(SRC) && !file.isDeclarationFile;
}

// ---------------------------------------------------------------------------------------------
// Names, followed without the checker: scope by scope, and through imports and re-exports.

function moduleFile(from: ts.SourceFile, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = join(dirname(from.fileName), specifier);
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

/** The function whose parameter `name` is, seen from `from` (the nearest one that declares it). */
function parameterOwner(from: ts.Node, name: string): { owner: ts.SignatureDeclaration; index: number } | null {
  for (let scope: ts.Node | undefined = from.parent; scope; scope = scope.parent) {
    if (!ts.isFunctionLike(scope)) continue;
    const index = scope.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
    if (index >= 0) return { owner: scope, index };
  }
  return null;
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

function withoutCasts(value: ts.Expression | undefined): ts.Expression | undefined {
  while (value && (ts.isAsExpression(value) || ts.isSatisfiesExpression(value) || ts.isParenthesizedExpression(value))) value = value.expression;
  return value;
}

/** The object literal a constant is, if it is one (`const NAME_TAKEN = {…} as const`). */
function constantObject(target: ts.Node): ts.ObjectLiteralExpression | null {
  const value = ts.isVariableDeclaration(target) ? withoutCasts(target.initializer) : undefined;
  return value && ts.isObjectLiteralExpression(value) ? value : null;
}

function propertyNamed(object: ts.ObjectLiteralExpression, member: string): ts.ObjectLiteralElementLike | undefined {
  return object.properties.find((p) => p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === member);
}

// ---------------------------------------------------------------------------------------------
// Members, followed with the checker: `engine.payments.charge` is the gateways' `charge`, not the
// whole of the engine (which would list every code of every gateway method on `engine.payments.name`).

/**
 * The classes that implement an interface, and the functions declared to return it, by the
 * interface's name (src/ has one interface of each name it implements; two alike would share).
 */
let implementers: Map<string, ts.Node[]> | null = null;
/** Right-hand sides assigned to a member (`engine.centralLink.customerFromCentral = …`), by the member's symbol. */
let assignments: Map<ts.Symbol, ts.Expression[]> | null = null;

function typeName(type: ts.TypeNode | undefined): string | null {
  if (!type || !ts.isTypeReferenceNode(type)) return null;
  const name = type.typeName.getText();
  // `Promise<Engine>`: an async factory's object is what it resolves to.
  if (name === 'Promise') return typeName(type.typeArguments?.[0]);
  return name;
}

/** Every class, factory and member assignment of src/, indexed once (what an interface's member can be). */
function indexImplementations(): void {
  if (implementers && assignments) return;
  const byName = new Map<string, ts.Node[]>();
  const bySymbol = new Map<ts.Symbol, ts.Expression[]>();
  const add = <K, V>(map: Map<K, V[]>, key: K, value: V) => map.set(key, [...(map.get(key) ?? []), value]);
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      for (const clause of node.heritageClauses ?? []) for (const type of clause.types) add(byName, type.expression.getText(), node);
    } else if (ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const name = typeName(node.type);
      if (name) add(byName, name, node);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left)) {
      const symbol = checker().getSymbolAtLocation(node.left.name);
      if (symbol) add(bySymbol, symbol, node.right);
    }
    ts.forEachChild(node, visit);
  };
  for (const file of theProgram().getSourceFiles()) if (isOurs(file)) visit(file);
  implementers = byName;
  assignments = bySymbol;
}

/** The object literals a factory returns (`return { async unpair() {…} }`). */
function returnedObjects(factory: ts.Node): ts.ObjectLiteralExpression[] {
  const found: ts.ObjectLiteralExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (node !== factory && ts.isFunctionLike(node)) return; // a nested function's returns are its own
    if (ts.isReturnStatement(node)) {
      const value = withoutCasts(node.expression);
      if (value && ts.isObjectLiteralExpression(value)) found.push(value);
    }
    ts.forEachChild(node, visit);
  };
  visit(factory);
  // An arrow's expression body: `() => ({ … })`.
  if (ts.isArrowFunction(factory) && !ts.isBlock(factory.body)) {
    const value = withoutCasts(factory.body);
    if (value && ts.isObjectLiteralExpression(value)) found.push(value);
  }
  return found;
}

/** Where the member `name` of interface `owner` is defined: in its implementing classes and factories. */
function implementationsOf(owner: ts.InterfaceDeclaration, name: string, symbol: ts.Symbol): ts.Node[] {
  indexImplementations();
  const found: ts.Node[] = [...(assignments!.get(symbol) ?? [])];
  for (const implementer of implementers!.get(owner.name.text) ?? []) {
    if (ts.isClassDeclaration(implementer)) found.push(...implementer.members.filter((m) => m.name && ts.isIdentifier(m.name) && m.name.text === name));
    else {
      for (const object of returnedObjects(implementer)) {
        const member = propertyNamed(object, name);
        if (member) found.push(member);
      }
    }
  }
  return found;
}

/** Whether a member's declared type is a function: only a called member has code to follow. */
function isFunctionMember(declaration: ts.PropertySignature | ts.MethodSignature): boolean {
  if (ts.isMethodSignature(declaration)) return true;
  return declaration.type !== undefined && ts.isFunctionTypeNode(declaration.type);
}

/**
 * What `object.member` reaches, by the checker: a member with a body (a class's method, an object
 * literal's property) is followed; an interface's function member leads to its implementations and
 * to what is assigned to it; an interface's data member (`engine.payments`) is nothing by itself —
 * the member called on it is followed in turn. Library members (Kysely's selectFrom) are not ours.
 */
function membersReached(access: ts.PropertyAccessExpression): ts.Node[] {
  const symbol = checker().getSymbolAtLocation(access.name);
  const found: ts.Node[] = [];
  for (const declaration of symbol?.declarations ?? []) {
    if (!isOurs(declaration)) continue;
    if (ts.isPropertySignature(declaration) || ts.isMethodSignature(declaration)) {
      if (!isFunctionMember(declaration)) continue;
      const owner = declaration.parent;
      // A function member of an inline type (`centralLink: { customerFromCentral?: … }`): only what is assigned to it.
      found.push(...(ts.isInterfaceDeclaration(owner) ? implementationsOf(owner, access.name.text, symbol!) : (indexImplementations(), assignments!.get(symbol!) ?? [])));
    } else found.push(declaration);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Tables keyed by a parameter: `NAME_TAKEN[table]` in refuseTakenName(trx, 'tiers', …) is
// tier_name_taken only; counting the whole table listed every *_name_taken on every caller.

interface KeyedLookup {
  /** The position of the parameter used as key. */
  index: number;
  table: ts.ObjectLiteralExpression;
}

/** `TABLE[param]`: a constant object literal read with a parameter of a named function as key. */
function keyedLookupAt(node: ts.Node): (KeyedLookup & { owner: ts.SignatureDeclaration }) | null {
  if (!ts.isElementAccessExpression(node) || !ts.isIdentifier(node.expression) || !ts.isIdentifier(node.argumentExpression)) return null;
  const table = resolveIdentifier(node.expression).map(constantObject).find((t) => t !== null);
  const parameter = parameterOwner(node, node.argumentExpression.text);
  if (!table || !parameter || !isCalledByName(parameter.owner)) return null;
  return { table, ...parameter };
}

/** A function its callers name (so each call's arguments can be read), not an anonymous callback. */
function isCalledByName(fn: ts.SignatureDeclaration): boolean {
  if (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) return true;
  return (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && (ts.isVariableDeclaration(fn.parent) || ts.isPropertyAssignment(fn.parent));
}

/** The function a followed name stands for (a `const f = () => …` is its arrow). */
function functionOf(target: ts.Node): ts.SignatureDeclaration | null {
  if (ts.isFunctionDeclaration(target) || ts.isMethodDeclaration(target)) return target;
  const value = ts.isVariableDeclaration(target) || ts.isPropertyAssignment(target) ? withoutCasts(target.initializer) : undefined;
  return value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) ? value : null;
}

const lookupMemo = new Map<ts.Node, KeyedLookup[]>();

function keyedLookupsOf(fn: ts.SignatureDeclaration): KeyedLookup[] {
  if (!lookupMemo.has(fn)) {
    const found: KeyedLookup[] = [];
    const visit = (node: ts.Node): void => {
      const lookup = keyedLookupAt(node);
      if (lookup?.owner === fn) found.push({ index: lookup.index, table: lookup.table });
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(fn, visit);
    lookupMemo.set(fn, found);
  }
  return lookupMemo.get(fn)!;
}

/** The entries a call picks from its callee's keyed tables: the one its literal argument names, else all. */
function keyedCodes(target: ts.Node, call: ts.CallExpression | null): Set<string> {
  const codes = new Set<string>();
  const fn = functionOf(target);
  for (const { index, table } of fn ? keyedLookupsOf(fn) : []) {
    const argument = call?.arguments[index];
    const chosen = argument && ts.isStringLiteralLike(argument) ? propertyNamed(table, argument.text) : undefined;
    for (const entry of chosen ? [chosen] : table.properties) for (const code of codesOf(entry)) codes.add(code);
  }
  return codes;
}

// ---------------------------------------------------------------------------------------------
// The walk.

/** `object.member`: the member's own value when `object` is a constant object literal, else the whole of what `object` names. */
function membersOf(object: ts.Identifier, member: string): ts.Node[] {
  return resolveIdentifier(object).map((target) => {
    const value = constantObject(target);
    return (value && propertyNamed(value, member)) ?? target;
  });
}

/** The call `node` is the callee of, if it is one. */
function callOf(node: ts.Node): ts.CallExpression | null {
  return ts.isCallExpression(node.parent) && node.parent.expression === node ? node.parent : null;
}

/** Schedulers whose callback runs in a later turn of the event loop, after a reply sent now has left. */
const DEFERRING = new Set(['setImmediate', 'setTimeout']);

/**
 * A function handed to setImmediate or setTimeout by a call whose value is dropped (a statement of
 * its own) and that no `new Promise` executor wraps (a route could await that promise): what it
 * throws is never the answer (pairing-control.ts restarts a node this way). The call's other
 * arguments, and a named function handed over, are still followed.
 */
export function isDeferredCallback(node: ts.Node): boolean {
  if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return false;
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(node) || !DEFERRING.has(call.expression.getText())) return false;
  if (!ts.isExpressionStatement(call.parent)) return false;
  for (let up: ts.Node | undefined = call.parent.parent; up; up = up.parent) if (ts.isNewExpression(up) && up.expression.getText() === 'Promise') return false;
  return true;
}

const memo = new Map<ts.Node, Set<string>>();

/** The listed codes `node` can answer with, following every name it uses. */
function codesOf(node: ts.Node): Set<string> {
  const known = memo.get(node);
  if (known) return known;
  const codes = new Set<string>();
  memo.set(node, codes); // a cycle reads what is found so far
  const follow = (targets: ts.Node[], use: ts.Node): void => {
    for (const target of targets) for (const code of [...codesOf(target), ...keyedCodes(target, callOf(use))]) codes.add(code);
  };
  const visit = (child: ts.Node): void => {
    if (ts.isTypeNode(child) || ts.isInterfaceDeclaration(child) || ts.isTypeAliasDeclaration(child) || ts.isImportDeclaration(child)) return;
    if ((ts.isStringLiteral(child) || ts.isNoSubstitutionTemplateLiteral(child)) && LISTED.has(child.text) && !isOnlyCompared(child)) codes.add(child.text);
    // Counted at each call instead, by the entry its argument picks (keyedCodes).
    if (keyedLookupAt(child)) return;
    // Work handed to the event loop for later runs after the reply has left: what it throws is never the answer.
    if (isDeferredCallback(child)) return;
    if (ts.isPropertyAccessExpression(child)) {
      if (ts.isIdentifier(child.expression) && resolveIdentifier(child.expression).length > 0) {
        // `useCases.create(…)` of an object of use cases reaches that one member, not its siblings.
        follow(membersOf(child.expression, child.name.text), child);
        return;
      }
      follow(membersReached(child), child);
      visit(child.expression);
      return;
    }
    if (ts.isIdentifier(child) && isReference(child)) follow(resolveIdentifier(child), child);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return codes;
}

// ---------------------------------------------------------------------------------------------
// Routes.

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

/** `METHOD /path` → its 409, 422 and 503 codes, sorted (operations without any are left out). */
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
