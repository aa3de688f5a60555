// The table of a report page: its columns found from the column titles (Test / Result / Previous /
// Units / Reference / Flag, in the common forms of several languages) and, on cumulative reports,
// from a row of collection dates above the titles; then which column holds the current result.
// Cumulative reports print the current result beside earlier ones (columns by collection date, or
// "previous result" columns) and sometimes a small lab-code column: only the current column's
// value is a result, the others are never read as one.
import { looksLikeUnit } from '../dictionary/units.ts';
import { readDate } from './metadata.ts';
import type { Cell, Row } from './rows.ts';

export type ColumnRole = 'name' | 'result' | 'previous' | 'unit' | 'range' | 'flag' | 'code' | 'other';
export type Column = {
  role: ColumnRole;
  x0: number;
  x1: number;
  title: string;
  /** A unit printed in the title (`Result (mg/dL)`, `Value, mmol/L`): the unit of every value below. */
  units?: string;
};
export type TableModel = {
  page: number;
  /** Left to right; exactly one has the role `result` (the current one). */
  columns: Column[];
  /** The row of titles: rows below it (until the next table) are read against the columns. */
  headerY: number;
  /** The page's horizontal share (two tables side by side on a two-column page each own theirs). */
  from: number;
  to: number;
};

const ROLE_WORDS: [ColumnRole, RegExp][] = [
  [
    'previous',
    /^(previous|prior|earlier|last|old)( (results?|values?|report))?$|^(vorwert|vorbefund|früher|antérieur|précédent|résultat antérieur|anterior|resultado anterior|precedente|önceki( sonuç)?|vorige)$/,
  ],
  [
    'result',
    /^((your |current |latest |observed |measured |test )?(results?|values?)|current|latest|in range|within range|out of range|outside range|ergebnis|befund|wert|resultat|résultat|valeur|resultado|valor|risultato|valore|sonuç|uitslag|resultaat)$/,
  ],
  ['unit', /^(units?|uom|unit of measure|einheit|unités?|unidad(es)?|unità|unidade|birim|eenheid)$/],
  [
    'range',
    /^((biological |bio\.? )?(reference|ref\.?|normal|standard|expected)( (range|ranges|interval|intervals|values?|limits?))?|ranges?|referenzbereich|normbereich|referenzwerte?|valeurs? (de référence|normales?|usuelles)|intervalle de référence|valores? de referencia|rango( de referencia)?|intervalo de referencia|valori di riferimento|intervallo di riferimento|valores de referência|referans( aralığı| değer(i|leri)?)?|referentiewaarden?)( ?(\/|&|and)? ?units?)?$/,
  ],
  ['flag', /^(flags?|status|indicator|abnormal|abn|h\/l|kennzeichen|indicateur)$/],
  ['code', /^(lab|lab code|site|performing lab|labo|code)$/],
  // Columns that are neither: their cells go to them and are never read as a value or unit.
  [
    'other',
    /^(methods?|methodology|technology|technique|specimen|sample( type)?|comments?|remarks?|notes?|methode|méthode|método|metodo|yöntem|numune)$/,
  ],
  [
    'name',
    /^(tests?|test name|test descriptions?|tests? performed|investigations?|analytes?|parameters?|examinations?|components?|descriptions?|determinations?|untersuchung|analyse|analyses|examen|paramètre|prueba|determinación|parámetro|esame|analisi|exame|tetkik( adı)?|test adı|bepaling|onderzoek)$/,
  ],
];

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    // Turkish İ lowercases to i with a combining dot.
    .replace(/\u0307/g, '')
    .replace(/[:.*]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** A title with a unit printed in it (`Result (mg/dL)`, `Value, mmol/L`), split; else the title alone. */
export function titleAndUnit(text: string): { title: string; units?: string } {
  const match = /^(.*[a-z].*?)(?:\s*\(([^()]+)\)|,\s*(\S+)|\s+in\s+(\S+))$/i.exec(text.trim());
  const units = match?.[2] ?? match?.[3] ?? match?.[4];
  return match && units && looksLikeUnit(units) ? { title: match[1]!.trim(), units } : { title: text };
}

export function roleOfTitle(text: string): ColumnRole | undefined {
  const words = wordsOf(titleAndUnit(text).title);
  return ROLE_WORDS.find(([, pattern]) => pattern.test(words))?.[0];
}

/** A date as printed in a cumulative report's column title (`02-Aug-19`, `14/03/2025`, `2025-03-14`). */
function columnDate(text: string): number | undefined {
  const cleaned = text
    .trim()
    .replace(/^(\d{1,2})-([A-Za-z]{3})-(\d{2})$/, (_, d, m, y) => `${d} ${m} 20${y}`);
  const date = readDate(cleaned, true) ?? readDate(cleaned, false);
  return date ? Date.parse(date) : undefined;
}

/** A row of column titles: at least two cells are titles, and one of them is a value's column. */
function titleRow(row: Row): { cell: Cell; role: ColumnRole }[] | undefined {
  const titled = row.cells.flatMap((cell) => {
    const role = roleOfTitle(cell.text);
    return role ? [{ cell, role }] : [];
  });
  if (titled.length < 2) return undefined;
  return titled.some(({ role }) => role !== 'name') ? titled : undefined;
}

/** Collection-date columns in one of the rows just above the titles: two or more dates side by side. */
function dateColumns(
  rows: Row[],
  at: number,
  inside: (cell: Cell) => boolean,
): { cell: Cell; time: number }[] | undefined {
  for (let index = at; index >= Math.max(0, at - 4); index -= 1) {
    const row = rows[index]!;
    const dated = row.cells.filter(inside).flatMap((cell) => {
      const time = columnDate(cell.text);
      return time === undefined ? [] : [{ cell, time }];
    });
    if (dated.length >= 2) return dated;
  }
  return undefined;
}

/** A label such as "Latest results" / "Current" printed above one of the date columns. */
function markedCurrent(rows: Row[], at: number, columns: Column[]): Column | undefined {
  for (let index = at; index >= Math.max(0, at - 5); index -= 1)
    for (const cell of rows[index]!.cells) {
      if (!/\b(latest|current|aktuell|actuel|actual|attuale|güncel)\b/i.test(cell.text)) continue;
      const middle = (cell.x0 + cell.x1) / 2;
      const under = columns.find((column) => column.x0 - 8 <= middle && middle <= column.x1 + 8);
      if (under) return under;
    }
  return undefined;
}

/**
 * The table models of a page's rows: one per title row, each in force until the next one. A
 * table without any result column (titles but no value column) is none: its rows are read
 * without a model.
 */
export function findTables(rows: Row[]): TableModel[] {
  const tables: TableModel[] = [];
  rows.forEach((row, index) => {
    const titles = titleRow(row);
    if (!titles) return;
    // A two-column page repeats its titles ("Test Result Range   Test Result Range"): each run
    // that starts with a name title is a table of its own, side by side.
    const starts = titles.filter(({ role }) => role === 'name');
    const groups =
      starts.length >= 2
        ? starts.map((start, at) => {
            const end = starts[at + 1]?.cell.x0 ?? Infinity;
            return titles.filter(({ cell }) => cell.x0 >= start.cell.x0 && cell.x0 < end);
          })
        : (repeatedTitles(titles) ?? [titles]);
    // Halves meet midway between one's last title and the next one's first (a slanted photo moves
    // a row's first word a little left of its title).
    const border = (at: number) => {
      const left = groups[at - 1]!;
      return (Math.max(...left.map(({ cell }) => cell.x1)) + groups[at]![0]!.cell.x0) / 2;
    };
    groups.forEach((group, at) => {
      const from = at === 0 ? -Infinity : border(at);
      const to = at + 1 < groups.length ? border(at + 1) : Infinity;
      const table = tableOf(rows, index, group, from, to);
      if (table) tables.push(table);
    });
  });
  return tables;
}

/**
 * A two-column page whose left "Test" title OCR lost (`Result  Reference   Test  Result  Reference`):
 * a second result title after a range or unit title starts the second table (with the name title
 * just before it, when read). Undefined when the titles do not repeat.
 */
function repeatedTitles(
  titles: { cell: Cell; role: ColumnRole }[],
): { cell: Cell; role: ColumnRole }[][] | undefined {
  const sorted = [...titles].sort((a, b) => a.cell.x0 - b.cell.x0);
  const again = sorted.findIndex(
    ({ role }, at) =>
      role === 'result' &&
      sorted.slice(0, at).some((before) => before.role === 'result') &&
      sorted.slice(0, at).some((before) => before.role === 'range' || before.role === 'unit'),
  );
  if (again <= 0) return undefined;
  const start = sorted[again - 1]!.role === 'name' ? again - 1 : again;
  return [sorted.slice(0, start), sorted.slice(start)];
}

function tableOf(
  rows: Row[],
  index: number,
  titles: { cell: Cell; role: ColumnRole }[],
  from: number,
  to: number,
): TableModel | undefined {
  const row = rows[index]!;
  const columns: Column[] = titles.map(({ cell, role }) => {
    const { units } = titleAndUnit(cell.text);
    return { role, x0: cell.x0, x1: cell.x1, title: cell.text, ...(units ? { units } : {}) };
  });
  const inside = (cell: Cell) => cell.x0 >= from && cell.x0 < to;
  const dates = dateColumns(rows, index, inside);
  if (dates) {
    const dated: Column[] = dates.map(({ cell }) => ({
      role: 'previous',
      x0: cell.x0,
      x1: cell.x1,
      title: cell.text,
    }));
    columns.push(...dated);
    const current =
      markedCurrent(rows, index, dated) ??
      dated.reduce((latest, column) =>
        columnDate(column.title)! > columnDate(latest.title)! ? column : latest,
      );
    // An explicit "Result" title beside date columns names the current one; otherwise the date does.
    if (!columns.some((column) => column.role === 'result')) current.role = 'result';
  }
  const results = columns.filter((column) => column.role === 'result');
  if (results.length === 0) return undefined;
  // Two "result" titles (Result … Result read as current and earlier): the first is current —
  // except "In range" / "Out of range", two columns of the current result (a row fills one).
  const split = results.every((column) => /range/i.test(column.title));
  if (!split) results.slice(1).forEach((column) => (column.role = 'previous'));
  // The leftmost title over the names need not be a name's ("Specimen" over test names).
  const leftmost = columns.reduce((first, column) => (column.x0 < first.x0 ? column : first));
  if (!columns.some((column) => column.role === 'name') && leftmost.role === 'other') leftmost.role = 'name';
  if (!columns.some((column) => column.role === 'name')) {
    const below = rows.slice(index + 1, index + 6).flatMap((next) => next.cells.filter(inside).slice(0, 1));
    const left = Math.min(...below.map((cell) => cell.x0));
    const first = Math.min(...columns.map((column) => column.x0));
    if (left < first) columns.push({ role: 'name', x0: left, x1: left, title: '' });
  }
  columns.sort((a, b) => a.x0 - b.x0);
  return { page: row.page, columns, headerY: row.y, from, to };
}

/** The tables a row is read against: those of the nearest title row above it (one, or several side by side). */
export function tablesInForce(tables: TableModel[], row: Pick<Row, 'y'>): TableModel[] {
  const above = tables.filter((table) => table.headerY < row.y);
  const latest = above.at(-1)?.headerY;
  return above.filter((table) => table.headerY === latest);
}

/** Each column with the horizontal span it owns: its own, widened to the midpoints between neighbours. */
export function columnSpans(table: TableModel): { column: Column; from: number; to: number }[] {
  const columns = table.columns;
  return columns.map((column, index) => {
    const previous = columns[index - 1];
    const next = columns[index + 1];
    return {
      column,
      from: previous ? (previous.x1 + column.x0) / 2 : table.from,
      to: next ? (column.x1 + next.x0) / 2 : table.to,
    };
  });
}

/**
 * The column a cell belongs to. The name column owns everything that starts left of the first
 * other column's reach; other cells go to the column whose span holds the cell's middle.
 */
export function columnOf(table: TableModel, cell: Pick<Cell, 'x0' | 'x1'>): Column {
  const middle = (cell.x0 + cell.x1) / 2;
  const bounds = columnSpans(table);
  const first = bounds[0]!;
  if (first.column.role === 'name' && cell.x0 < first.to) return first.column;
  return (bounds.find((bound) => middle >= bound.from && middle < bound.to) ?? bounds[bounds.length - 1]!)
    .column;
}
