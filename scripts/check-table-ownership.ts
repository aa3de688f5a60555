// Table ownership, checked (ARCHITECTURE.md, "Who owns which table"): each table is declared by
// exactly one module's `tables.ts` (Kysely module augmentation of store/schema.ts's Database), and
// only that module names the table in a query — `selectFrom`, `insertInto`, `updateTable`,
// `deleteFrom`, `mergeInto`, any join, or raw `sql` text. Another module reads or writes it through
// the owner's repo or service. Ownership is read from the tables.ts files, so it cannot drift from
// the code. Run by `npm run lint`; test/unit/table-ownership.test.ts plants violations.
//
// Usage: node scripts/check-table-ownership.ts [root]   (exit 1 and one line per violation)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Queries across owners that are allowed on purpose, each with the reason. Key:
 * `<module>|<table>` (module as in `ownerOf`). Keep this empty unless a join through the owner's
 * repo would cost a round trip per row.
 */
export const ALLOWED: Record<string, string> = {};

/** Modules that own tables or run queries: `features/<name>`, else the first folder under src. */
export function moduleOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'features' && parts.length > 2) return `features/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : path;
}

const QUERY_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'replaceInto',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoin',
  'using',
  'table',
]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Table names a tables.ts adds to `interface Database` inside `declare module '…/schema.ts'`. */
function declaredTables(file: ts.SourceFile): string[] {
  const tables: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isModuleDeclaration(node) &&
      ts.isStringLiteral(node.name) &&
      node.name.text.endsWith('store/schema.ts') &&
      node.body &&
      ts.isModuleBlock(node.body)
    ) {
      for (const statement of node.body.statements) {
        if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'Database')
          for (const member of statement.members)
            if (member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)))
              tables.push(member.name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return tables;
}

/** `'users as u'` / `'public.users'` → `users`. */
function tableName(reference: string): string {
  const first = reference.trim().split(/\s+/)[0]!;
  return first.includes('.') ? first.slice(first.lastIndexOf('.') + 1) : first;
}

export type Violation = { file: string; line: number; table: string; owner: string; via: string };

export function checkTableOwnership(root: string): { owners: Map<string, string>; violations: Violation[] } {
  const srcDir = join(root, 'src');
  const files = sourceFiles(srcDir).map((path) => ({
    path,
    rel: relative(srcDir, path).split(sep).join('/'),
  }));
  const parsed = new Map(files.map((file) => [file.rel, parse(file.path)]));

  const owners = new Map<string, string>();
  const problems: Violation[] = [];
  for (const { rel } of files) {
    for (const table of declaredTables(parsed.get(rel)!)) {
      const owner = moduleOf(rel);
      const previous = owners.get(table);
      if (previous && previous !== owner)
        problems.push({ file: rel, line: 1, table, owner: previous, via: 'declared twice' });
      owners.set(table, owner);
    }
  }
  // Raw SQL: a table named after FROM, JOIN, INTO, UPDATE, TABLE, USING or ON CONFLICT … (word match).
  const tablePattern = new RegExp(
    `\\b(?:from|join|into|update|table|using|exists)\\s+(?:only\\s+)?(?:"?\\w+"?\\.)?"?(${[...owners.keys()].join('|')})"?\\b`,
    'gi',
  );

  for (const { rel } of files) {
    if (rel.startsWith('store/migrations/')) continue;
    const module = moduleOf(rel);
    const file = parsed.get(rel)!;
    const report = (node: ts.Node, table: string, via: string) => {
      const owner = owners.get(table);
      if (!owner || owner === module || ALLOWED[`${module}|${table}`] !== undefined) return;
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      problems.push({ file: rel, line, table, owner, via });
    };
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        const first = node.arguments[0];
        if (QUERY_METHODS.has(method) && first && ts.isStringLiteralLike(first))
          report(node, tableName(first.text), method);
      }
      if (ts.isTaggedTemplateExpression(node) && /\bsql$/.test(node.tag.getText(file))) {
        const template = node.template;
        const text = ts.isNoSubstitutionTemplateLiteral(template)
          ? template.text
          : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)].join(' ');
        for (const match of text.matchAll(tablePattern)) report(node, match[1]!.toLowerCase(), 'sql');
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { owners, violations: problems };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..');
  const { violations } = checkTableOwnership(root);
  for (const v of violations)
    console.error(
      `src/${v.file}:${v.line}: ${v.via} touches "${v.table}", owned by ${v.owner} (go through its repo or service)`,
    );
  if (violations.length > 0) {
    console.error(`table ownership: ${violations.length} violation(s)`);
    process.exit(1);
  }
}
