import { mock } from 'node:test';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Autosave, type AutosaveState, type SaveFailure } from '../../src/app/areas/author/autosave';
import { parseBlocks, parseInline } from '../../src/app/ui/markdown-parse';

// The editor's autosave with the draft's optimistic revision. A fake
// server stands in for updateDraft (its compare-and-set is tested through
// GraphQL in test/graphql/templates-authoring.test.ts); what is tested here is
// the editor's side: one save at a time, always at the revision last answered,
// and a conflict that stops autosave instead of saving over someone else.

/**
 * The autosave's pauses (debounce, retry) are its own setTimeout calls: node:test's mock timers stand in for
 * them, and the test moves that clock. A save that would start after a pause has started once the clock is past
 * it, so "nothing was saved" is proven by moving the clock, not by waiting.
 */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Moves the timers' clock `ms` forward, a millisecond at a time, letting what each step started settle. */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    mock.timers.tick(1);
    await settle();
  }
}

/** Moves the timers' clock until `condition` holds (at most a minute of it). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let moved = 0; !condition(); moved++) {
    if (moved > 60_000) throw new Error(`still waiting for ${what} after a minute of the test's clock`);
    mock.timers.tick(1);
    await settle();
  }
}

/** A draft on a fake server: a save at the wrong revision is a CONFLICT, as updateDraft answers. */
function fakeServer(start = 1) {
  let gate: Promise<void> = Promise.resolve();
  const server = {
    revision: start,
    doc: null as string | null,
    saves: [] as { doc: string; expectedRevision: number }[],
    inFlight: 0,
    maxInFlight: 0,
    fail: null as SaveFailure | null,
    /** answers wait until `open()` (a save in flight for as long as the test likes) */
    hold() {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      return { open };
    },
    async save(doc: string, expectedRevision: number) {
      server.saves.push({ doc, expectedRevision });
      server.inFlight++;
      server.maxInFlight = Math.max(server.maxInFlight, server.inFlight);
      await gate;
      server.inFlight--;
      if (server.fail) {
        const failure = server.fail;
        throw Object.assign(new Error(failure.message), failure);
      }
      if (expectedRevision !== server.revision)
        throw Object.assign(new Error('moved'), {
          code: 'CONFLICT',
          details: { currentRevision: server.revision, updatedBy: 7, updatedAt: '2026-11-26T17:00:00.000Z' },
        });
      server.doc = doc;
      server.revision++;
      return { revision: server.revision };
    },
  };
  return server;
}

function editor(server: ReturnType<typeof fakeServer>, revision = 1) {
  const states: AutosaveState[] = [];
  const autosave = new Autosave<string>(revision, {
    save: (doc, expected) => server.save(doc, expected),
    onState: (s) => states.push(s),
    delayMs: 10,
    retryMs: 10,
  });
  return { autosave, states };
}

const test = suite('app author: autosave with the optimistic revision');
test.before.each(() => mock.timers.enable({ apis: ['setTimeout'] }));
test.after.each(() => mock.timers.reset());

test('changes settle, then one save at the current revision; the answer is the next revision', async () => {
  const server = fakeServer();
  const { autosave } = editor(server);
  autosave.change('a');
  autosave.change('ab');
  autosave.change('abc');
  assert.is(autosave.current.status, 'pending');
  await until(() => autosave.current.status === 'saved', 'the save');
  assert.equal(server.saves, [{ doc: 'abc', expectedRevision: 1 }]);
  assert.equal([autosave.current.status, autosave.current.revision, autosave.dirty], ['saved', 2, false]);
});

test('a change while a save is in flight is saved after it, at the revision it answered — never two at once', async () => {
  const server = fakeServer();
  const answer = server.hold();
  const { autosave } = editor(server);
  autosave.change('one');
  await until(() => server.inFlight === 1, 'the first save on its way');
  autosave.change('two');
  // well past the second change's pause, with the first save still unanswered: the second waits for it
  await advance(1_000);
  assert.is(server.saves.length, 1);
  answer.open();
  await until(() => server.saves.length === 2 && autosave.current.status === 'saved', 'the second save');
  assert.equal(server.saves, [
    { doc: 'one', expectedRevision: 1 },
    { doc: 'two', expectedRevision: 2 },
  ]);
  assert.is(server.maxInFlight, 1);
  assert.equal([autosave.current.status, server.doc, server.revision], ['saved', 'two', 3]);
});

test('someone else saved first: CONFLICT stops autosave — later changes are held, nothing is saved over theirs', async () => {
  const server = fakeServer();
  const { autosave } = editor(server);
  server.revision = 2; // another author's save
  server.doc = 'theirs';
  autosave.change('mine');
  await until(() => autosave.current.status === 'conflict', 'the conflict');
  assert.equal(autosave.current.conflict, { currentRevision: 2, updatedBy: 7, updatedAt: '2026-11-26T17:00:00.000Z' });
  autosave.change('mine, more');
  await advance(2_000); // past the pause (10 ms here, 800 ms by default): a save would have started
  assert.is(server.saves.length, 1);
  assert.is(server.doc, 'theirs');
  assert.ok(autosave.dirty);
});

test('after a conflict the author chooses: keep mine saves the latest copy over theirs at their revision', async () => {
  const server = fakeServer();
  const { autosave } = editor(server);
  server.revision = 2;
  autosave.change('mine');
  await until(() => autosave.current.status === 'conflict', 'the conflict');
  autosave.change('mine, final');
  const state = await autosave.overwrite(2);
  assert.equal([state.status, state.revision, server.doc], ['saved', 3, 'mine, final']);
  assert.equal(server.saves.at(-1), { doc: 'mine, final', expectedRevision: 2 });
});

test('after a conflict the author chooses: take theirs drops the unsaved copy and goes on from their revision', async () => {
  const server = fakeServer();
  const { autosave } = editor(server);
  server.revision = 4;
  autosave.change('mine');
  await until(() => autosave.current.status === 'conflict', 'the conflict');
  autosave.adopt(4);
  assert.equal([autosave.current.status, autosave.dirty], ['saved', false]);
  autosave.change('on top of theirs');
  await until(() => autosave.current.status === 'saved', 'the save');
  assert.equal(server.saves.at(-1), { doc: 'on top of theirs', expectedRevision: 4 });
  assert.is(server.revision, 5);
});

test('a VALIDATION_ERROR keeps its problems by path until the next change saves', async () => {
  const server = fakeServer();
  const { autosave } = editor(server);
  server.fail = {
    code: 'VALIDATION_ERROR',
    message: 'Validation failed',
    fields: [{ path: 'content.sections.0.steps.1.fields.0.min', message: 'min is greater than max' }],
  };
  autosave.change('bad');
  await until(() => autosave.current.status === 'invalid', 'the refusal');
  assert.equal(
    [autosave.current.status, autosave.current.problems.map((p) => p.path)],
    ['invalid', ['content.sections.0.steps.1.fields.0.min']],
  );
  await advance(2_000); // past the pause and the retry's: a resend would have started
  assert.is(server.saves.length, 1, 'an invalid draft is not re-sent unchanged');
  server.fail = null;
  autosave.change('good');
  await until(() => autosave.current.status === 'saved', 'the save');
  assert.equal([autosave.current.status, autosave.current.problems], ['saved', []]);
});

test('a save that does not get through is retried by itself, and flush() waits for the answer', async () => {
  const server = fakeServer();
  const { autosave, states } = editor(server);
  try {
    server.fail = { code: 'NETWORK', message: 'offline' };
    autosave.change('kept');
    await until(() => states.some((s) => s.status === 'failed'), 'the failure');
    server.fail = null;
    await until(() => autosave.current.status === 'saved', 'the retry');
    assert.equal([autosave.current.status, server.doc], ['saved', 'kept']);
    autosave.change('last');
    const flushed = await autosave.flush();
    assert.equal([flushed.status, server.doc], ['saved', 'last']);
  } finally {
    // a failing assertion must not leave retries running (the file would never end)
    autosave.dispose();
  }
});

test.run();

const markdown = suite('app author: step text Markdown, the blocks the PDF renders');

markdown('headings, lists (bullets and numbers), rules and paragraphs, as src/lib/pdf.ts reads them', () => {
  assert.equal(parseBlocks('# Safety\nLock out\nboth breakers.\n\n- gloves\n* goggles\n1. open\n2) close\n---\nDone'), [
    { type: 'heading', level: 1, text: 'Safety' },
    { type: 'paragraph', text: 'Lock out both breakers.' },
    { type: 'list', ordered: false, items: ['gloves', 'goggles'], start: 1 },
    { type: 'list', ordered: true, items: ['open', 'close'], start: 1 },
    { type: 'rule' },
    { type: 'paragraph', text: 'Done' },
  ]);
});

markdown('inline marks; links only to http(s) and mailto; an image is its alt text', () => {
  assert.equal(
    parseInline('Use **both** keys, *gently*, `M8` — [manual](https://example.test/m) ![gauge](x.png) [x](javascript:alert(1))'),
    [
      'Use ',
      { mark: 'strong', text: 'both' },
      ' keys, ',
      { mark: 'em', text: 'gently' },
      ', ',
      { mark: 'code', text: 'M8' },
      ' — ',
      { mark: 'link', text: 'manual', href: 'https://example.test/m' },
      ' ',
      'gauge',
      ' ',
      'x',
      ')',
    ],
  );
});

markdown.run();
