/** What a reader found wrong with a recording: reported, never skipped silently. */
export interface RecordingProblem {
  /**
   * truncated: the file ends without its gzip trailer (cut at `rows`); corrupt-line: one line
   * is not a row; corrupt-file: the gzip data is damaged; version: a header this makerd does not
   * read (the file is skipped); gap: no Depth answer for a pair for too long, or trades its
   * Trades poll could not fetch within the budget (a TradesGap row).
   */
  readonly kind: 'truncated' | 'corrupt-line' | 'corrupt-file' | 'version' | 'gap';
  /** DIR-relative path of the file. */
  readonly file?: string;
  readonly line?: number;
  readonly pair?: string;
  /** A gap's last answer before and first answer after (ms since the epoch). */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** One line for people. */
  readonly message: string;
}
