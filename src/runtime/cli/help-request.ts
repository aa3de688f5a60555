/**
 * Whether a command line asks for help, decided without loading any command (help.ts loads them
 * all for their usage texts): `serve` starts without them.
 */
export const HELP_FLAGS = new Set(['--help', '-h', 'help']);

/** True where help.ts's `requestedHelp` may answer: see there for the rules. */
export function asksForHelp(argv: readonly string[]): boolean {
  const [name, ...args] = argv;
  if (name === undefined || HELP_FLAGS.has(name)) return true;
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  return options.includes('--help') || options.includes('-h');
}
