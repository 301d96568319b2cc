/**
 * The ceiling of the stack: bare Koa with @koa/router answering GET
 * /api/client/auth/me with the JSON envelope given in BENCH_BODY (the same
 * bytes wip answers), serialized per request as wip's is. Nothing else: no
 * headers, logs, metrics, authentication or database.
 */
import Koa from 'koa';
import Router from '@koa/router';

const data: unknown = JSON.parse(process.env.BENCH_BODY ?? '{"ok":true}');
const app = new Koa();
const router = new Router();
router.get('/api/client/auth/me', (ctx) => {
  ctx.body = { success: true, data };
});
app.use(router.routes());
app.use(router.allowedMethods());
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`bare on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
