/** The page's own stylesheet: light, one column on a phone, charts two abreast on a wide screen. */
export const PAGE_STYLE = `
:root { --ink: #1d232b; --muted: #5f6b7a; --line: #e3e7ec; --bg: #f6f8fa; --neg: #b42318; --pos: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
header, main, footer { max-width: 1240px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 20px; }
h1 { font-size: 1.5rem; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 20px 0 8px; overflow-wrap: anywhere; }
.sub { color: var(--muted); font-size: 0.9rem; font-weight: normal; margin: 0; overflow-wrap: anywhere; }
.summary, .pair { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 16px; margin: 16px 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.kv th { color: var(--muted); font-weight: 500; white-space: nowrap; }
table.kv td { overflow-wrap: anywhere; }
table.grid { min-width: 100%; }
table.grid thead th { border-bottom: 2px solid var(--line); white-space: nowrap; }
table.grid tbody th { color: var(--muted); font-weight: 500; }
table[data-table="pairs"] td { white-space: nowrap; }
ul.problems { margin: 8px 0 0; padding-left: 20px; }
ul.problems li { margin: 4px 0; }
.what { overflow-wrap: anywhere; }
code { font-size: 0.9em; overflow-wrap: anywhere; }
.unit { color: var(--muted); font-size: 0.85em; }
.neg { color: var(--neg); }
.ok { color: var(--pos); }
.off { color: var(--neg); font-weight: 600; }
.note { color: var(--muted); font-size: 0.9rem; }
.buy { color: #1a7f37; }
.sell { color: #c4320a; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 8px 20px; }
.chart-price { grid-column: 1 / -1; }
figure { margin: 0; min-width: 0; }
figcaption { font-size: 0.9rem; color: var(--muted); margin: 8px 0 2px; }
.plot { width: 100%; min-height: 200px; }
.empty { color: var(--muted); font-style: italic; margin: 8px 0 16px; }
.uplot { font-family: inherit; }
.u-legend { font-size: 0.8rem; }
footer { color: var(--muted); font-size: 0.8rem; padding-bottom: 24px; }
@media (max-width: 600px) {
  body { font-size: 14px; }
  header, main, footer { padding: 0 8px; }
  .summary, .pair { padding: 2px 10px 12px; border-radius: 6px; }
  th, td { padding: 4px 5px; }
  table { font-size: 13px; }
  table.kv th { white-space: normal; }
}
`;
