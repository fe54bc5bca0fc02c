import { Command, CommanderError } from 'commander';
// errors.js, not core/index.js: this runs for `--help` too, which must not load decimal.js & co.
import { MakerdError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { registerCommands } from './commands.js';

/**
 * `makerd <command>`: the command line. Exit codes: 0 success, 1 runtime failure, 2 bad usage.
 */
const program = new Command('makerd')
  .description('Market-making daemon for a spot exchange REST interface')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();
registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof MakerdError) {
    // The message may quote an exchange's answer or a name from the command line.
    process.stderr.write(`makerd: ${printable(err.message)}\n`);
    process.exitCode = err.code === 'INVALID_INPUT' ? 2 : 1;
  } else {
    throw err;
  }
}
