/**
 * GET /openapi.json of a started `tickvault serve`: a valid OpenAPI 3.1 document (checked by
 * @seriousme/openapi-schema-validator), whose schemas accept the server's real answers and
 * the requests it serves (checked by Ajv, draft 2020-12), and whose parameter lists are the
 * ones the server accepts.
 */
import { suite } from 'uvu';
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';
import { LEVEL2_PARAMS } from '../../../serve/detailedHistory/params.js';
import { DOCUMENTED_PARAMS, type OpenApiDocument, type Schema } from '../../../serve/http/openapi.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { addAccount, httpRequest, postApi, preparedData, startServer, type ServerHandle } from '../../support/server.js';

const t = suite('openapi');

/** Two trading days (20250102, 20250103), stocks 600000.SH and 000001.SZ, indexes 000001 and 000300: quick to replay. */
const SMALL_DATA = { days: 2, stocks: 2, indexes: 2, ticks: 1 } as const;
const RESPONSES = ['Level2Response', 'TradeHistoryResponse', 'OrderHistoryResponse', 'TickHistoryResponse'];

// ajv's CommonJS default export: under NodeNext the class is the module's `default`.
const Ajv2020 = Ajv2020Module.default;

let server: ServerHandle;
let doc: OpenApiDocument;
let flagship: string;
let free: string;
let validate: (name: string, value: unknown) => string | null;

t.before(async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  flagship = addAccount(dataDir, 'flagship').key;
  free = addAccount(dataDir, 'free').key;
  server = await startServer(dataDir, { args: ['--rate-limit', '1000'] });
  const res = await httpRequest(`${server.url}/openapi.json`, { method: 'GET' });
  assert.is(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  doc = JSON.parse(res.text) as OpenApiDocument;

  // The whole document as one schema resource: component schemas resolve their $refs in it.
  // `strict: false` because OpenAPI adds keywords (discriminator) and non-schema members.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc as unknown as object, 'openapi.json');
  validate = (pointer, value) => {
    const fn = ajv.getSchema(`openapi.json#${pointer}`);
    if (!fn) throw new Error(`no schema at ${pointer}`);
    return fn(value) ? null : ajv.errorsText(fn.errors);
  };
});

t.after(async () => {
  await server?.stop();
});

const schemaOf = (name: string) => `/components/schemas/${name}`;
const errorSchema = (code: number) => `/components/responses/Error${code}/content/application~1json/schema`;

t('the served document is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  assert.is(validator.version, '3.1');
  assert.is(doc.openapi, '3.1.0');
  const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.is((doc as unknown as { info: { version: string } }).info.version, pkg.version, 'info.version is the package version');
  assert.ok(doc.paths['/api'].post, 'POST /api');
  for (const code of ['200', '400', '401', '403', '413', '415', '429', '500', '503']) assert.ok(doc.paths['/api'].post!.responses[code], `response ${code}`);
  assert.ok(doc.paths['/api'].post!.responses['200'] && 'content' in doc.paths['/api'].post!.responses['200']);
  const ok200 = doc.paths['/api'].post!.responses['200'] as { content: Record<string, unknown> };
  assert.ok(ok200.content['application/vnd.apache.parquet'], 'the Parquet media type');
  assert.equal(doc.components.schemas.ApiRequest.discriminator?.propertyName, 'apiname');
});

t('field lists come from shared/schema.ts', () => {
  const enumOf = (name: string) => ((doc.components.schemas[name].properties!.data as Schema).properties!.fields as Schema).items as Schema;
  assert.equal(enumOf('Level2Response').enum, SCHEMAS.level2.fieldNames);
  assert.equal(enumOf('TickHistoryResponse').enum, SCHEMAS.index.fieldNames);
  assert.equal(enumOf('TradeHistoryResponse').enum, SCHEMAS.trade.fieldNames);
  assert.equal(enumOf('OrderHistoryResponse').enum, SCHEMAS.order.fieldNames);
});

t('real answers validate against the documented schemas', async () => {
  const l2 = (params: Record<string, unknown>, fields?: string) =>
    postApi(server, { apiname: 'level2_quote_history', apikey: flagship, params, ...(fields ? { fields } : {}) });
  const tick = (params: Record<string, unknown>, key = flagship) => postApi(server, { apiname: 'tick_history', apikey: key, params });
  const trades = (params: Record<string, unknown>, fields?: string) =>
    postApi(server, { apiname: 'level2_trade_history', apikey: flagship, params, ...(fields ? { fields } : {}) });
  const orders = (params: Record<string, unknown>) => postApi(server, { apiname: 'level2_order_history', apikey: flagship, params });

  const ok: [string, Awaited<ReturnType<typeof postApi>>][] = [
    ['Level2Response', await l2({ symbol: '600000.SH', tradedate: '20250102', page_size: 4 })],
    ['Level2Response', await l2({ symbol: '600000', tradedate: '20250104' })], // not a trading day: no data
    ['Level2Response', await l2({ symbol: 'sh600000', tradedate: '20250103', start_time: '14:59' }, 'time,close,bid1')],
    ['TradeHistoryResponse', await trades({ symbol: '000001.SZ', tradedate: '20250102', page_size: 50 })],
    ['TradeHistoryResponse', await trades({ symbol: '000001.SZ', tradedate: '20250103', start_time: '09:25', end_time: '09:25' }, 'time,bs_flag,trade_code')],
    ['TradeHistoryResponse', await trades({ symbol: '600999', tradedate: '20250102' })], // not stored: no data
    ['OrderHistoryResponse', await orders({ symbol: '600000', tradedate: '20250103', page_size: 50 })],
    ['TickHistoryResponse', await tick({ symbol: '000001', tradedate: '20250102' })],
    ['TickHistoryResponse', await tick({ symbols: ['000001', '000300'], startdate: '20250102', enddate: '20250106', limit: 10 })],
    ['TickHistoryResponse', await tick({ tradedate: '20250103', trademin: '1030', side: 'before' })],
    ['TickHistoryResponse', await tick({ symbols: '000001', startdate: '20241227', enddate: '20250103', limit: 3 })], // cross-month message
  ];
  for (const [name, res] of ok) {
    assert.is(res.status, 200, res.text.slice(0, 200));
    const err = validate(schemaOf(name), res.json);
    assert.is(err, null, `${name}: ${err}\n${res.text.slice(0, 300)}`);
    // …and not another operation's shape: the oneOf of 200 answers is unambiguous.
    for (const other of RESPONSES.filter((r) => r !== name)) assert.is.not(validate(schemaOf(other), res.json), null, `${name} also valid as ${other}`);
  }

  const errors: [number, Awaited<ReturnType<typeof postApi>>][] = [
    [400, await l2({ symbol: '600000.SH', page_size: 0 })],
    [401, await postApi(server, { apiname: 'tick_history', apikey: 'tv_unknown-key-000000', params: {} })],
    [403, await tick({ symbol: '000001' }, free)],
  ];
  for (const [code, res] of errors) {
    assert.is(res.status, code);
    assert.is(validate(errorSchema(code), res.json), null, res.text);
  }

  const file = await httpRequest(`${server.url}/api`, {
    body: JSON.stringify({ apiname: 'level2_quote_history', apikey: flagship, params: { symbol: '600000.SH', tradedate: '20250102', format: 'parquet' } }),
    headers: { 'content-type': 'application/json' },
  });
  assert.is(file.status, 200);
  const ok200 = doc.paths['/api'].post!.responses['200'] as { content: Record<string, unknown> };
  assert.ok(String(file.headers['content-type']) in ok200.content, `documented media type ${file.headers['content-type']}`);
});

t('requests: the documented body schema accepts served requests and rejects what the server rejects', () => {
  const req = schemaOf('ApiRequest');
  assert.is(validate(req, { apiname: 'level2_quote_history', apikey: 'k', params: { symbol: '600000.SH', tradedate: '20250102', format: 'parquet' } }), null);
  assert.is(validate(req, { apiname: 'level2_quote_history', apikey: 'k', fields: 'time, close,bid1', params: { symbol: 'SZ000001', cursor: null } }), null);
  assert.is(validate(req, { apiname: 'tick_history', apikey: 'k', params: { symbols: ['000300'], recentdays: 3, order_dir: 'desc' } }), null);
  assert.is(validate(req, { apiname: 'tick_history', apikey: 'k', params: { tradedate: '20250102', trademin: '0931', side: 'after' } }), null);
  assert.is.not(validate(req, { apiname: 'tick_history', apikey: 'k', params: { symbol: '000300', bogus: 1 } }), null, 'unknown param');
  assert.is.not(validate(req, { apiname: 'level2_quote_history', apikey: 'k', params: {} }), null, 'symbol is required');
  assert.is.not(validate(req, { apiname: 'level2_quote_history', apikey: 'k', fields: 'time,nope', params: { symbol: '600000' } }), null, 'unknown field');
  assert.is.not(validate(req, { apiname: 'other', apikey: 'k', params: {} }), null, 'unknown apiname');
  assert.is(
    validate(req, { apiname: 'level2_trade_history', apikey: 'k', fields: 'time,trade_id,bs_flag', params: { symbol: '000001', cursor: 'c1x' } }),
    null,
  );
  assert.is(
    validate(req, { apiname: 'level2_order_history', apikey: 'k', fields: 'order_type,side', params: { symbol: '600000.SH', format: 'parquet' } }),
    null,
  );
  assert.is.not(
    validate(req, { apiname: 'level2_trade_history', apikey: 'k', fields: 'time,side', params: { symbol: '000001' } }),
    null,
    'an order field on trades',
  );
  assert.is.not(
    validate(req, { apiname: 'level2_order_history', apikey: 'k', fields: 'close', params: { symbol: '000001' } }),
    null,
    'a level-2 field on orders',
  );
  assert.is.not(validate(req, { apiname: 'tick_history', apikey: 'k', params: {}, extra: true }), null, 'unknown body member');
});

t('documented parameters are exactly those the server accepts', async () => {
  assert.equal([...DOCUMENTED_PARAMS.level2_quote_history].sort(), [...LEVEL2_PARAMS].sort());
  for (const [apiname, names] of Object.entries(DOCUMENTED_PARAMS)) {
    for (const name of names) {
      // A deliberately wrong value: the server may reject it, but never as an unknown parameter.
      const res = await postApi(server, { apiname, apikey: flagship, params: { [name]: { wrong: true } } });
      assert.not.match(res.json.message, /unknown parameter/, `${apiname} params.${name}: ${res.json.message}`);
    }
    const res = await postApi(server, { apiname, apikey: flagship, params: { not_documented: 1 } });
    assert.is(res.status, 400);
    assert.match(res.json.message, /unknown parameter params\.not_documented/);
  }
});

t.run();
