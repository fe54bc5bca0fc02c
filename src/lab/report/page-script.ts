/**
 * The script the page runs (plain browser JavaScript, inlined as text): reads the JSON element
 * and draws each pair's charts with uPlot. Kept as a string, not compiled from TypeScript, so the
 * page gets exactly this code whichever loader built makerd. Text from the data only ever reaches
 * the page through uPlot's labels (textContent), never as markup.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var COLOR = {
    mid: '#3b5b92', bid: '#1a7f37', ask: '#c4320a', target: '#8e6bbf',
    position: '#1f77b4', spread: '#1a7f37', inventory: '#e37f00', fees: '#c4320a', total: '#3b5b92',
    ratecount: '#e37f00', limit: '#8a8f98', buy: '#1a7f37', sell: '#c4320a', all: '#3b5b92'
  };
  var plots = [];

  function size(el) {
    return { width: Math.max(240, Math.floor(el.clientWidth)), height: window.innerWidth < 600 ? 200 : 250 };
  }
  function utc(ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); }
  // 24-hour UTC ticks, the date under the first tick of each day.
  function timeTicks(u, splits, i, space, incr) {
    var day = '';
    return splits.map(function (ts) {
      var iso = new Date(ts * 1e3).toISOString();
      var label = incr < 60 ? iso.slice(11, 19) : iso.slice(11, 16);
      if (iso.slice(0, 10) !== day) { day = iso.slice(0, 10); label += '\n' + day; }
      return label;
    });
  }
  function digits(n) { return function (u, v) { return v == null ? '-' : v.toFixed(n); }; }
  function series(label, color, more) {
    var s = { label: label, stroke: color, width: 1.5 };
    for (var k in more) s[k] = more[k];
    return s;
  }
  // The y axis as wide as its longest label (uPlot's axis-autosize recipe), so prices fit.
  function axisSize(u, values, i, cycle) {
    var axis = u.axes[i];
    if (cycle > 1) return axis._size;
    var w = axis.ticks.size + axis.gap;
    var longest = (values || []).reduce(function (a, v) { return String(v).length > a.length ? String(v) : a; }, '');
    if (longest !== '') { u.ctx.font = axis.font[0]; w += u.ctx.measureText(longest).width / uPlot.pxRatio; }
    return Math.ceil(w);
  }
  function draw(figure, opts, cols) {
    var el = figure.querySelector('.plot');
    var s = size(el);
    opts.width = s.width;
    opts.height = s.height;
    opts.axes = opts.axes || [{}, {}];
    opts.axes[1].size = axisSize;
    plots.push({ u: new uPlot(opts, cols, el), el: el });
  }
  // A chart without data says so instead of drawing empty axes.
  function nothing(figure, text) {
    var p = document.createElement('p');
    p.className = 'empty';
    p.textContent = text;
    figure.replaceChild(p, figure.querySelector('.plot'));
  }
  // Halts as shaded spans behind the lines: quoting stopped and every order was cancelled.
  var haltBands = {
    hooks: {
      drawClear: [function (u) {
        var ctx = u.ctx, b = u.bbox, drawn = 0;
        ctx.save();
        ctx.fillStyle = 'rgba(196,50,10,0.12)';
        data.halts.forEach(function (h) {
          var x0 = Math.max(b.left, u.valToPos(h.start, 'x', true));
          var x1 = Math.min(b.left + b.width, h.end === null ? b.left + b.width : u.valToPos(h.end, 'x', true));
          if (x1 <= x0) return;
          ctx.fillRect(x0, b.top, Math.max(x1 - x0, uPlot.pxRatio), b.height);
          drawn++;
        });
        ctx.restore();
        u.root.setAttribute('data-halts-drawn', String(drawn));
      }]
    }
  };
  function overTime(key, label, list, extra) {
    var opts = {
      tzDate: utc,
      cursor: { sync: { key: key } },
      scales: { x: { time: true } },
      series: [{ label: 'time (UTC)' }].concat(list),
      axes: [{ values: timeTicks, space: 70 }, { label: label, labelSize: 20 }],
      plugins: [haltBands]
    };
    for (var k in extra) opts[k] = k === 'plugins' ? opts.plugins.concat(extra[k]) : extra[k];
    return opts;
  }
  // Fills as triangles over the price lines: up for a buy, down for a sell.
  function fillMarkers(p, figure) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, b = u.bbox, drawn = 0;
          var r = (window.innerWidth < 600 ? 3 : 4.5) * uPlot.pxRatio;
          ctx.save();
          ctx.beginPath();
          ctx.rect(b.left, b.top, b.width, b.height);
          ctx.clip();
          ctx.lineWidth = uPlot.pxRatio;
          ctx.strokeStyle = '#fff';
          for (var i = 0; i < p.fills.t.length; i++) {
            var x = u.valToPos(p.fills.t[i], 'x', true);
            var y = u.valToPos(p.fills.price[i], 'y', true);
            if (x < b.left || x > b.left + b.width) continue;
            var buy = p.fills.buy[i] === 1, d = buy ? 1 : -1;
            ctx.fillStyle = buy ? COLOR.buy : COLOR.sell;
            ctx.beginPath();
            ctx.moveTo(x, y - d * r);
            ctx.lineTo(x + r, y + d * r * 0.8);
            ctx.lineTo(x - r, y + d * r * 0.8);
            ctx.closePath();
            ctx.fill();
            ctx.stroke();
            drawn++;
          }
          ctx.restore();
          figure.setAttribute('data-fills-drawn', String(drawn));
        }]
      }
    };
  }

  function pricesChart(p, key, figure) {
    var c = p.cols;
    var list = [series('mid', COLOR.mid), series('our bid', COLOR.bid), series('our ask', COLOR.ask)];
    var cols = [c[0], c[1], c[2], c[3]];
    if (p.hasTarget) {
      list.push(series('target bid', COLOR.target, { dash: [4, 4], width: 1 }));
      list.push(series('target ask', COLOR.target, { dash: [4, 4], width: 1 }));
      cols.push(c[4], c[5]);
    }
    var opts = overTime(key, p.quote, list, { plugins: [fillMarkers(p, figure)] });
    draw(figure, opts, cols);
  }
  function positionChart(p, key, figure) {
    var c = p.cols;
    draw(figure, overTime(key, p.base, [series('position', COLOR.position, { fill: 'rgba(31,119,180,0.08)' })]), [c[0], c[6]]);
  }
  function pnlChart(p, key, figure) {
    var c = p.cols;
    var list = [
      series('spread', COLOR.spread, { value: digits(2) }),
      series('inventory', COLOR.inventory, { value: digits(2) }),
      series('fees', COLOR.fees, { value: digits(2) }),
      series('total', COLOR.total, { width: 2.5, value: digits(2) })
    ];
    draw(figure, overTime(key, p.quote, list), [c[0], c[7], c[8], c[9], c[10]]);
  }
  function ratecountChart(p, key, figure) {
    var c = p.cols, max = p.ratecountMax;
    var limit = c[0].map(function () { return max; });
    var list = [
      series('ratecount', COLOR.ratecount, { fill: 'rgba(227,127,0,0.12)', value: digits(1) }),
      series('maximum', COLOR.limit, { dash: [6, 4], width: 1 })
    ];
    var opts = overTime(key, 'count', list, {
      scales: { x: { time: true }, y: { range: function (u, lo, hi) { return [0, Math.max(max, hi) * 1.05]; } } }
    });
    draw(figure, opts, [c[0], c[11], limit]);
  }
  function markoutChart(p, figure) {
    var m = p.markouts;
    var label = function (h) { return m.labels[m.horizonsS.indexOf(h)] || ''; };
    // Horizons evenly spaced (1 s, 10 s, 1 min), each labelled as the summary table writes it.
    var opts = {
      scales: { x: { time: false, distr: 2 } },
      series: [
        { label: 'horizon', value: function (u, v) { return v == null ? '-' : label(v); } },
        series('buys', COLOR.buy, { points: { show: true, size: 7 }, value: digits(2) }),
        series('sells', COLOR.sell, { points: { show: true, size: 7 }, value: digits(2) }),
        series('all', COLOR.all, { width: 2.5, points: { show: true, size: 8 }, value: digits(2) })
      ],
      axes: [
        { values: function (u, v) { return v.map(label); } },
        { label: 'bps', labelSize: 20 }
      ]
    };
    draw(figure, opts, [m.horizonsS, m.buy, m.sell, m.all]);
  }

  data.totals.forEach(function (t, i) {
    var figure = document.querySelector('figure[data-chart="equity"][data-index="' + i + '"]');
    if (figure === null) return;
    if (t.cols[0].length === 0) { nothing(figure, 'No data in this run.'); return; }
    draw(figure, overTime('total' + i, t.quote, [series('PnL total', COLOR.total, { width: 2, value: digits(2) })]), t.cols);
  });

  data.pairs.forEach(function (p, i) {
    var section = document.querySelector('section.pair[data-index="' + i + '"]');
    var key = 'pair' + i;
    var chart = function (kind) { return section.querySelector('figure[data-chart="' + kind + '"]'); };
    var kinds = ['price', 'position', 'pnl', 'ratecount'];
    if (p.cols[0].length === 0) {
      kinds.forEach(function (kind) { nothing(chart(kind), 'No data in this run.'); });
    } else {
      pricesChart(p, key, chart('price'));
      positionChart(p, key, chart('position'));
      pnlChart(p, key, chart('pnl'));
      ratecountChart(p, key, chart('ratecount'));
    }
    if (p.markouts.all.every(function (v) { return v == null; })) {
      nothing(chart('markouts'), 'No markouts: no fill has one yet.');
    } else {
      markoutChart(p, chart('markouts'));
    }
    if (p.fills.t.length < p.fillsTotal) {
      var note = document.createElement('span');
      note.textContent = ' (' + p.fills.t.length + ' of ' + p.fillsTotal + ' fills shown)';
      chart('price').querySelector('figcaption').appendChild(note);
    }
  });

  var pending = false;
  window.addEventListener('resize', function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      plots.forEach(function (p) { p.u.setSize(size(p.el)); });
    });
  });
  document.body.setAttribute('data-charts', String(plots.length));
})();
`;
