// @ts-check
// The tickvault console: sign in with an API key, see the account, try every operation.
// Plain ES module, no build step. Forms come from the server's own OpenAPI document, so every
// parameter of the spec is here with the server's patterns and enums; the server's error
// message is shown verbatim whenever it refuses a request.

const KEY_STORAGE = 'tickvault.apikey';
/** @type {any} */
const LWC = /** @type {any} */ (globalThis).LightweightCharts;
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {{ key: string | null, op: string, spec: any, account: any, lastBody: any, chart: any, series: { title: string, scale: string, series: any }[] }} */
const state = { key: null, op: 'level2_quote_history', spec: null, account: null, lastBody: null, chart: null, series: [], follow: null };

/** How often a live day's query is asked again (the day is followed while its answers say live). */
const FOLLOW_MS = 5000;

const PARAMS_SCHEMA = {
  level2_quote_history: 'Level2Params', level2_trade_history: 'TradeHistoryParams', level2_order_history: 'OrderHistoryParams', tick_history: 'TickHistoryParams',
  minute: 'MinuteParams', daily: 'DailyParams', weekly: 'WeeklyParams', monthly: 'MonthlyParams', daily_auc: 'DailyAucParams', tradecal: 'TradecalParams',
};
const REQUEST_SCHEMA = {
  level2_quote_history: 'Level2Request', level2_trade_history: 'TradeHistoryRequest', level2_order_history: 'OrderHistoryRequest', tick_history: 'TickHistoryRequest',
  minute: 'MinuteRequest', daily: 'DailyRequest', weekly: 'WeeklyRequest', monthly: 'MonthlyRequest', daily_auc: 'DailyAucRequest', tradecal: 'TradecalRequest',
};
/** The bar interfaces drawn as a K-line (candlesticks, and volume bars beneath). */
const BAR_OPS = new Set(['minute', 'daily', 'weekly', 'monthly']);
/** The operations that take one stock (the detailed history interfaces). */
const STOCK_OPS = new Set(['level2_quote_history', 'level2_trade_history', 'level2_order_history']);
const TABLE_ROWS = 300;

// ---- talking to the server -------------------------------------------------------------------

/** POSTs JSON; resolves with the status, headers and the envelope (or a Blob for a file). */
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) return { status: res.status, headers: res.headers, json: await res.json(), blob: null };
  return { status: res.status, headers: res.headers, json: null, blob: await res.blob() };
}

// ---- signing in ------------------------------------------------------------------------------

async function signIn(key) {
  const r = await post('/account', { apikey: key });
  if (r.status !== 200 || !r.json) {
    $('signin-error').textContent = r.json ? `${r.json.code}: ${r.json.message}` : `HTTP ${r.status}`;
    return false;
  }
  state.key = key;
  localStorage.setItem(KEY_STORAGE, key);
  $('signin-error').textContent = '';
  $('signin').hidden = true;
  $('app').hidden = false;
  renderAccount(r.json.data);
  return true;
}

function signOut() {
  localStorage.removeItem(KEY_STORAGE);
  state.key = null;
  state.account = null;
  /** @type {HTMLInputElement} */ ($('key')).value = '';
  $('app').hidden = true;
  $('signin').hidden = false;
  $('who').textContent = '';
  clearResponse();
}

async function refreshAccount() {
  if (!state.key) return;
  const r = await post('/account', { apikey: state.key });
  if (r.status === 200 && r.json) renderAccount(r.json.data);
  else if (r.status === 401) signOut();
}

function usageText(u) {
  if (u === null) return 'not counted';
  return `${u.left} of ${u.limit} left (${u.used} used)`;
}

function renderAccount(a) {
  state.account = a;
  $('who').textContent = `account ${a.account_id} · ${a.plan} plan`;
  const rows = Object.entries(a.operations).map(([api, o]) => {
    const history = !o.allowed ? 'no access' : o.history.from === null ? `all history, to ${o.history.to}` : `${o.history.from} – ${o.history.to} (latest ${o.history.trading_days} trading days)`;
    return `<tr><th>${api}</th><td>${o.allowed ? 'yes' : 'no'}</td><td>${history}</td><td>${usageText(o.daily_calls)}</td>` +
      `<td>${o.parquet_files === null ? '—' : usageText(o.parquet_files)}</td>` +
      `<td>${o.in_flight === null ? '—' : o.in_flight ? 'a request is in progress' : 'free'}</td></tr>`;
  });
  $('account-body').innerHTML =
    `<p>Plan <b data-testid="plan">${a.plan}</b> · ${a.rate_limit_per_second} requests per second · latest trading day ${a.latest_trading_day}` +
    ` · counters reset at ${a.counters_reset_at} (Beijing midnight) · now ${a.now}</p>` +
    `<table><thead><tr><th>interface</th><th>access</th><th>history (Beijing dates)</th><th>trial calls today</th><th>Parquet files today</th><th>one-request slot</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`;
}

// ---- the query form, from the OpenAPI document -------------------------------------------------

async function loadSpec() {
  const res = await fetch('/openapi.json');
  state.spec = await res.json();
}

/** The parameters of an operation: [name, schema] from its Params schema, plus the `fields` body member. */
function paramsOf(op) {
  const schemas = state.spec.components.schemas;
  const params = Object.entries(schemas[PARAMS_SCHEMA[op]].properties);
  const fields = schemas[REQUEST_SCHEMA[op]].properties.fields;
  return { params, fields };
}

function typesOf(schema) {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.oneOf) return schema.oneOf.flatMap(typesOf);
  return ['string'];
}

function inputFor(name, schema, where) {
  const label = document.createElement('label');
  const title = document.createElement('span');
  title.className = 'name';
  title.textContent = name;
  label.append(title);
  const enumValues = (schema.enum ?? []).filter((v) => v !== null);
  /** @type {HTMLInputElement | HTMLSelectElement} */
  let input;
  if (enumValues.length > 0) {
    const select = document.createElement('select');
    select.append(new Option('(default)', ''));
    for (const v of enumValues) select.append(new Option(String(v), String(v)));
    input = select;
  } else {
    const text = document.createElement('input');
    text.type = 'text';
    if (typesOf(schema).includes('integer')) text.inputMode = 'numeric';
    if (schema.pattern) text.dataset.pattern = schema.pattern;
    input = text;
  }
  input.name = name;
  input.dataset.where = where;
  input.dataset.types = typesOf(schema).join(',');
  input.title = schema.description ?? '';
  const error = document.createElement('span');
  error.className = 'field-error';
  label.append(input, error);
  return label;
}

function buildForm(op) {
  state.op = op;
  for (const b of document.querySelectorAll('button.op')) b.classList.toggle('active', /** @type {HTMLElement} */ (b).dataset.op === op);
  const form = /** @type {HTMLFormElement} */ ($('query-form'));
  form.innerHTML = '';
  const { params, fields } = paramsOf(op);
  for (const [name, schema] of params) form.append(inputFor(name, schema, 'params'));
  if (fields) form.append(inputFor('fields', fields, 'body'));
  const actions = document.createElement('div');
  actions.className = 'actions';
  const run = document.createElement('button');
  run.type = 'submit';
  run.id = 'run';
  run.textContent = `Run ${op}`;
  actions.append(run);
  form.append(actions);
  // Sensible first values: the account's latest trading day and the demo's first stock.
  const latest = state.account?.latest_trading_day ?? '';
  setValue('tradedate', latest);
  setValue('symbol', STOCK_OPS.has(op) ? '600000.SH' : '000001');
  if (BAR_OPS.has(op) || op === 'daily_auc') setValue('symbols', '600000.SH');
  clearResponse();
}

function setValue(name, value) {
  const el = /** @type {HTMLInputElement | null} */ (document.querySelector(`#query-form [name="${name}"]`));
  if (el) el.value = value;
}

/** Reads the form into a request body; null (with messages beside the fields) when invalid. */
function readForm() {
  /** @type {Record<string, unknown>} */
  const params = {};
  /** @type {Record<string, unknown>} */
  const body = { apiname: state.op, apikey: state.key, params };
  let ok = true;
  for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#query-form input, #query-form select'))) {
    const error = /** @type {HTMLElement} */ (el.nextElementSibling);
    error.textContent = '';
    el.classList.remove('invalid');
    const text = el.value.trim();
    if (text === '') continue;
    const types = (el.dataset.types ?? '').split(',');
    /** @type {unknown} */
    let value = text;
    if (types.includes('integer') && !types.includes('string')) {
      if (!/^-?\d+$/.test(text)) {
        error.textContent = 'a whole number';
        el.classList.add('invalid');
        ok = false;
        continue;
      }
      value = Number(text);
    } else if (el.dataset.pattern && !new RegExp(el.dataset.pattern).test(text) && !(el.name === 'symbols' && text.includes(','))) {
      error.textContent = 'not in the accepted form (see the tooltip)';
      el.classList.add('invalid');
      ok = false;
      continue;
    }
    if (el.dataset.where === 'body') body[el.name] = value;
    else params[el.name] = value;
  }
  return ok ? body : null;
}

// ---- request display -------------------------------------------------------------------------

function shellQuote(text) {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function showRequest(body) {
  const json = JSON.stringify(body);
  const url = `${location.origin}/api`;
  $('request-json').textContent = JSON.stringify(body, null, 2);
  const out = body.params.format === 'parquet' ? ` -o ${body.params.symbol ?? 'file'}_${body.params.tradedate ?? 'latest'}.parquet` : '';
  $('curl').textContent = `curl -sS ${url} -H 'Content-Type: application/json' -d ${shellQuote(json)}${out}`;
  $('python').textContent =
    `import requests\n\nbody = ${pythonLiteral(body)}\nr = requests.post(${JSON.stringify(url)}, json=body, timeout=60)\n` +
    (body.params.format === 'parquet'
      ? `r.raise_for_status()\nopen("${body.params.symbol ?? 'file'}.parquet", "wb").write(r.content)\n`
      : `envelope = r.json()\nprint(envelope["code"], envelope["message"])\n`);
}

/** JSON as a Python literal (null/true/false spelled the Python way). */
function pythonLiteral(value) {
  return JSON.stringify(value, null, 4)
    .replace(/: null/g, ': None')
    .replace(/: true/g, ': True')
    .replace(/: false/g, ': False');
}

async function copy(id) {
  try {
    await navigator.clipboard.writeText($(id).textContent ?? '');
  } catch {
    // Clipboard needs a secure context; the text is selectable in the panel anyway.
  }
  /** @type {HTMLDetailsElement} */ ($(id).parentElement).open = true;
}

// ---- running a query -------------------------------------------------------------------------

function clearResponse() {
  $('envelope').textContent = '';
  $('envelope').className = '';
  $('table').innerHTML = '';
  $('page-info').textContent = '';
  $('next-page').hidden = true;
  $('download').hidden = true;
  if (state.chart) {
    state.chart.remove();
    state.chart = null;
  }
  state.series = [];
  $('chart').innerHTML = '';
  $('chart').className = '';
}

/** Answers shown so far: tests (and curious users) can tell one answer from the next. */
let answers = 0;

async function run(body) {
  try {
    await runOnce(body);
  } finally {
    $('envelope').dataset.answer = String(++answers);
  }
}

async function runOnce(body) {
  // Any query (a new one, or the next page) stops following the previous one.
  clearTimeout(state.follow);
  state.follow = null;
  state.lastBody = body;
  showRequest(body);
  clearResponse();
  $('envelope').textContent = 'running…';
  const r = await post('/api', body);
  if (r.blob) {
    const name = `${body.params.symbol ?? 'file'}_${body.params.tradedate ?? 'latest'}.parquet`;
    const a = /** @type {HTMLAnchorElement} */ ($('download'));
    a.href = URL.createObjectURL(r.blob);
    a.download = name;
    a.textContent = `Download ${name} (${(r.blob.size / 1024).toFixed(1)} KiB)`;
    a.hidden = false;
    $('envelope').className = 'ok';
    $('envelope').textContent = `HTTP ${r.status} · Parquet file, ${r.blob.size} bytes`;
    void refreshAccount();
    return;
  }
  const env = r.json;
  const retry = r.headers.get('retry-after');
  $('envelope').className = env.code === 200 ? 'ok' : 'fail';
  const live = env.code === 200 && env.data?.live === true;
  $('envelope').textContent =
    `code ${env.code} · ${env.message}${retry ? ` · Retry-After ${retry} s` : ''}` +
    (live ? ` · live: the day is not sealed yet; asked again every ${FOLLOW_MS / 1000} s` : '');
  $('envelope').dataset.live = String(live);
  if (env.code === 200 && env.data) {
    renderTable(env.data);
    renderChart(env.data);
    renderPager(env.data);
  }
  void refreshAccount();
  // A live day's first page is followed: the same query again while the page is open, until
  // the day is sealed (an answer no longer live) or another query is run.
  if (live && body.params.cursor === undefined && body.params.offset === undefined) {
    state.follow = setTimeout(() => {
      if (state.lastBody === body && !document.hidden) void run(body);
    }, FOLLOW_MS);
  }
}

function renderTable(data) {
  const rows = data.items.slice(0, TABLE_ROWS);
  const head = `<thead><tr>${data.fields.map((f) => `<th>${f}</th>`).join('')}</tr></thead>`;
  const body = rows.map((row) => `<tr>${row.map((v) => `<td>${v === null ? '' : v}</td>`).join('')}</tr>`).join('');
  $('table').innerHTML = head + `<tbody>${body}</tbody>`;
  $('page-info').textContent = `${data.items.length} rows on this page${data.items.length > TABLE_ROWS ? ` (table shows the first ${TABLE_ROWS})` : ''}` +
    (data.has_more ? ' · more pages' : ' · last page');
}

function renderPager(data) {
  const next = $('next-page');
  next.hidden = !data.has_more;
  next.onclick = () => {
    const body = structuredClone(state.lastBody);
    if (data.next_cursor) body.params.cursor = data.next_cursor;
    else body.params.offset = (body.params.offset ?? 0) + data.items.length;
    if (data.next_cursor) setValue('cursor', data.next_cursor);
    else setValue('offset', String(body.params.offset));
    void run(body);
  };
}

// ---- the chart -------------------------------------------------------------------------------

/** Seconds for the chart's time axis: the Beijing wall-clock time, drawn as if UTC. */
function chartTime(date, time) {
  let m = /^(\d{2})(\d{2})(\d{2})(\d{3})$/.exec(time);
  let y = date.slice(0, 4), mo = date.slice(4, 6), d = date.slice(6, 8);
  if (!m) {
    const full = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?/.exec(time);
    if (!full) return null;
    [, y, mo, d] = full;
    m = [full[0], full[4], full[5], full[6], full[7] ?? '000'];
  }
  return Date.UTC(+y, +mo - 1, +d, +m[1], +m[2], +m[3]) / 1000;
}

/**
 * A price to draw: null or 0 is none. Snapshots carry null or 0 before the first trade (the
 * call auction), market orders have no limit price; drawn, they pull the line down to 0.
 */
const isPrice = (/** @type {unknown} */ v) => typeof v === 'number' && v > 0;
const isValue = (/** @type {unknown} */ v) => v !== null && v !== undefined;

/** Points with strictly increasing time (the chart's rule): the last value of each second, of the rows whose value `keep`s. */
function points(items, iDate, iTime, iValue, date, keep = isValue) {
  const out = [];
  for (const row of items) {
    const v = row[iValue];
    if (!keep(v)) continue;
    const t = chartTime(iDate >= 0 ? String(row[iDate]) : date, String(row[iTime]));
    if (t === null) continue;
    if (out.length > 0 && out[out.length - 1].time >= t) {
      if (out[out.length - 1].time === t) out[out.length - 1].value = v;
      continue;
    }
    out.push({ time: t, value: v });
  }
  return out;
}

// Volumes run to tens of millions: the axis counts them in the reader's units, Chinese desks in
// 万 (10^4) and 亿 (10^8), everyone else in k, M and B (13928700 is 1392.87万, or 13.93M).
const VOLUME_UNITS = /^zh\b/i.test(navigator.language)
  ? /** @type {const} */ ([[1e8, '亿'], [1e4, '万']])
  : /** @type {const} */ ([[1e9, 'B'], [1e6, 'M'], [1e3, 'k']]);

/** A volume in the largest unit it reaches once rounded, to at most two decimals (no trailing zeros); below the smallest unit, whole. */
function volumeLabel(/** @type {number} */ v) {
  for (const [unit, name] of VOLUME_UNITS) {
    const scaled = Math.round((Math.abs(v) / unit) * 100) / 100;
    if (scaled >= 1) return `${v < 0 ? '-' : ''}${scaled}${name}`;
  }
  return String(Math.round(v));
}

const VOLUME_FORMAT = { type: 'custom', formatter: volumeLabel, minMove: 1 };

const COLORS = ['#1d4ed8', '#c2410c', '#15803d', '#7c3aed', '#be123c', '#0e7490', '#a16207', '#4d7c0f'];

/**
 * The lines of a page: [{ title, color, width, scale, pts, volume?, auctionMark? }], each
 * series' points already chosen (prices only where there is one).
 */
function chartLines(data) {
  const f = data.fields;
  const iTime = f.indexOf('time');
  const iDate = f.indexOf('tradedate');
  const date = data.tradedate ?? '';
  const lines = [];
  if (state.op === 'level2_quote_history') {
    const iClose = f.indexOf('close');
    const iVol = f.indexOf('volume');
    // The day's line starts at its first trade: before it the price is null or 0 and the
    // cumulative volume 0, a flat line at 0 that says nothing (an auction page is nothing but).
    const first = data.items.findIndex((row) => (iClose >= 0 ? isPrice(row[iClose]) : Number(row[iVol]) > 0));
    const traded = first < 0 ? [] : data.items.slice(first);
    if (iClose >= 0) {
      lines.push({ title: 'last price', color: COLORS[0], width: 2, scale: 'right', pts: points(traded, iDate, iTime, iClose, date, isPrice), auctionMark: true });
    }
    if (iVol >= 0) {
      lines.push({ title: 'cumulative volume', color: COLORS[1], width: 1, scale: 'left', pts: points(traded, iDate, iTime, iVol, date), volume: true });
    }
  } else if (state.op === 'level2_trade_history') {
    // Trades: their price, and the cumulative volume of executions (cancellation records, trade_code C, are not trades).
    const iPrice = f.indexOf('price');
    const iVol = f.indexOf('volume');
    const iCode = f.indexOf('trade_code');
    const done = data.items.filter((row) => iCode < 0 || row[iCode] !== 'C');
    if (iPrice >= 0) {
      lines.push({ title: 'trade price', color: COLORS[0], width: 2, scale: 'right', pts: points(done, iDate, iTime, iPrice, date, isPrice) });
    }
    if (iVol >= 0) {
      let total = 0;
      const cumulative = done.map((row) => [...row.slice(0, iVol), (total += Number(row[iVol]) || 0), ...row.slice(iVol + 1)]);
      lines.push({ title: 'cumulative volume', color: COLORS[1], width: 1, scale: 'left', pts: points(cumulative, iDate, iTime, iVol, date), volume: true });
    }
  } else if (state.op === 'level2_order_history') {
    // Orders: limit prices, buys and sells apart (market orders have no price).
    const iPrice = f.indexOf('price');
    const iSide = f.indexOf('side');
    if (iPrice < 0) return lines;
    for (const [k, side, title] of [[0, 'B', 'buy order price'], [1, 'S', 'sell order price']]) {
      const rows = data.items.filter((row) => iSide < 0 || row[iSide] === side);
      lines.push({ title, color: COLORS[Number(k) + 2], width: 1, scale: 'right', pts: points(rows, iDate, iTime, iPrice, date, isPrice) });
    }
  } else {
    // tick_history: one line per index (or stock) of its close.
    const iSym = f.indexOf('symbol');
    const iClose = f.indexOf('close');
    if (iClose < 0) return lines;
    const bySymbol = new Map();
    for (const row of data.items) {
      const s = iSym >= 0 ? String(row[iSym]) : '';
      if (!bySymbol.has(s)) bySymbol.set(s, []);
      bySymbol.get(s).push(row);
    }
    let k = 0;
    for (const [sym, rows] of bySymbol) {
      k++;
      lines.push({ title: sym, color: COLORS[(k - 1) % COLORS.length], width: 2, scale: bySymbol.size > 1 && k > 1 ? `s${k}` : 'right', pts: points(rows, iDate, iTime, iClose, date, isPrice) });
    }
  }
  return lines;
}

/** A K-line of one stock's bars: candles by bar time (minute) or by day, volume bars beneath. */
function renderKline(data) {
  const f = data.fields;
  const at = Object.fromEntries(['tradedate', 'symbol', 'time', 'open', 'high', 'low', 'close', 'vol'].map((n) => [n, f.indexOf(n)]));
  if (!LWC || data.items.length === 0 || at.open < 0 || at.high < 0 || at.low < 0 || at.close < 0 || (at.time < 0 && at.tradedate < 0)) return;
  const first = at.symbol >= 0 ? data.items[0][at.symbol] : null;
  const rows = data.items.filter((r) => (at.symbol < 0 || r[at.symbol] === first) && isPrice(r[at.close]));
  const timeOf = (r) => (at.time >= 0 ? chartTime('', String(r[at.time])) : chartTime(String(r[at.tradedate]), '000000000'));
  const candles = rows.map((r) => ({ time: timeOf(r), open: r[at.open], high: r[at.high], low: r[at.low], close: r[at.close] }));
  const chart = LWC.createChart($('chart'), {
    autoSize: true,
    layout: { background: { color: '#ffffff' }, textColor: '#1d2330' },
    timeScale: { timeVisible: at.time >= 0, secondsVisible: false },
  });
  state.chart = chart;
  // Red up, green down, as A-share charts draw them.
  const k = chart.addSeries(LWC.CandlestickSeries, { upColor: '#d92d20', borderUpColor: '#d92d20', wickUpColor: '#d92d20', downColor: '#079455', borderDownColor: '#079455', wickDownColor: '#079455', title: String(first ?? '') });
  k.setData(candles);
  state.series.push({ title: `${first ?? ''} K-line`, scale: 'right', series: k });
  if (at.vol >= 0) {
    const v = chart.addSeries(LWC.HistogramSeries, { priceScaleId: 'volume', priceFormat: VOLUME_FORMAT, color: '#98a2b3', title: 'vol' });
    chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    v.setData(rows.map((r) => ({ time: timeOf(r), value: Number(r[at.vol]) })));
    state.series.push({ title: 'vol', scale: 'volume', series: v });
  }
  chart.timeScale().fitContent();
  requestAnimationFrame(() => requestAnimationFrame(() => chart.timeScale().fitContent()));
}

function renderChart(data) {
  if (BAR_OPS.has(state.op)) return renderKline(data);
  if (!LWC || data.items.length === 0 || data.fields.indexOf('time') < 0) return;
  const lines = chartLines(data);
  if (lines.length === 0) return;
  if (lines.every((l) => l.pts.length === 0)) {
    $('chart').className = 'note';
    $('chart').textContent = 'Nothing to chart on this page: no trade yet (before the first trade prices are null or 0).';
    return;
  }
  const chart = LWC.createChart($('chart'), {
    autoSize: true,
    layout: { background: { color: '#ffffff' }, textColor: '#1d2330' },
    // A day holds ~5,000 snapshots: let them all fit the width (the default spacing shows a few hours).
    timeScale: { timeVisible: true, secondsVisible: true, minBarSpacing: 0.01 },
    rightPriceScale: { visible: true },
    leftPriceScale: { visible: true },
  });
  state.chart = chart;
  for (const line of lines) {
    const series = chart.addSeries(LWC.LineSeries, {
      color: line.color, lineWidth: line.width, title: line.title, priceScaleId: line.scale, ...(line.volume ? { priceFormat: VOLUME_FORMAT } : {}),
    });
    series.setData(line.pts);
    state.series.push({ title: line.title, scale: line.scale, series });
    if (line.auctionMark && line.pts.length > 0 && LWC.createSeriesMarkers) {
      // Before 09:25 level 1 carries the call auction's indicative match (api-spec); mark where it ends.
      const auctionEnd = Math.floor(line.pts[0].time / 86400) * 86400 + (9 * 60 + 25) * 60;
      const at = line.pts.find((p) => p.time >= auctionEnd);
      if (at) LWC.createSeriesMarkers(series, [{ time: at.time, position: 'aboveBar', color: '#b42318', shape: 'arrowDown', text: '09:25 call auction' }]);
    }
  }
  chart.timeScale().fitContent();
  // autoSize lays the chart out after this frame; fit the whole day again once it has.
  requestAnimationFrame(() => requestAnimationFrame(() => chart.timeScale().fitContent()));
}

// What the chart holds, as the library keeps it: for the tests, and for a reader at the devtools prompt.
/** @type {any} */ (globalThis).tickvaultConsole = {
  chartSeries: () => state.series.map((s) => ({ title: s.title, scale: s.scale, points: s.series.data() })),
};

// ---- wiring ----------------------------------------------------------------------------------

async function main() {
  await loadSpec();
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void signIn(/** @type {HTMLInputElement} */ ($('key')).value.trim()).then((ok) => ok && buildForm(state.op));
  });
  $('signout').addEventListener('click', signOut);
  $('refresh-account').addEventListener('click', () => void refreshAccount());
  for (const b of document.querySelectorAll('button.op')) {
    b.addEventListener('click', () => buildForm(/** @type {HTMLElement} */ (b).dataset.op ?? 'level2_quote_history'));
  }
  $('query-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const body = readForm();
    if (body) void run(body);
  });
  $('copy-curl').addEventListener('click', () => void copy('curl'));
  $('copy-python').addEventListener('click', () => void copy('python'));
  const saved = localStorage.getItem(KEY_STORAGE);
  if (saved && (await signIn(saved))) buildForm(state.op);
  document.body.dataset.ready = 'true';
}

void main();
