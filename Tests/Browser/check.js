// The browser check: the real Firebase JS SDK (served from sdk/<version>/, never kept in
// this repository) against `hearth serve`, from another origin. Every check records
// {name, ok, detail} in window.__results; window.__done turns true at the end.
// URL parameters: v (SDK folder), mode (default | longpoll | autodetect-off), port, run (a
// fresh collection prefix).
const params = new URLSearchParams(location.search);
const version = params.get('v') || '12';
const mode = params.get('mode') || 'default';
const port = Number(params.get('port') || 8080);
const run = params.get('run') || String(Date.now());

const results = [];
window.__results = results;
window.__done = false;

function log(name, ok, detail) {
  results.push({ name, ok, detail: detail === undefined ? '' : String(detail) });
}

function withTimeout(promise, ms, what) {
  return Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout: ' + what + (step ? ' at ' + step : ''))), ms))]);
}

let step = '';
const only = params.get('only');
async function check(name, body, ms = 30000) {
  if (only && !name.includes(only)) return;
  step = '';
  try {
    await withTimeout(body(), ms, name);
    log(name, true);
  } catch (e) {
    log(name, false, (e && e.stack) || e);
  }
}

function assert(cond, message) { if (!cond) throw new Error(message); }
/// Compares two values as JSON with object keys sorted (maps have no order).
function same(a, b, message) {
  const canonical = v => JSON.stringify(v, (k, val) => val && typeof val === 'object' && !Array.isArray(val)
    ? Object.fromEntries(Object.keys(val).sort().map(key => [key, val[key]])) : val);
  const x = canonical(a), y = canonical(b);
  if (x !== y) throw new Error(message + ': ' + x + ' != ' + y);
}

/// One listener kept for a whole check: `until(predicate, what)` waits for a snapshot of it
/// (the latest one, or a later one) for which `predicate` holds.
function watch(subscribe) {
  let latest = null, waiters = [], failure = null;
  const unsubscribe = subscribe(snap => {
    latest = snap;
    waiters = waiters.filter(w => { let ok = false; try { ok = w.predicate(snap); } catch (e) {} if (ok) w.resolve(snap); return !ok; });
  }, err => { failure = err; waiters.forEach(w => w.reject(err)); waiters = []; });
  return {
    until(predicate, what, ms = 20000) {
      if (failure) return Promise.reject(failure);
      if (latest) { let ok = false; try { ok = predicate(latest); } catch (e) {} if (ok) return Promise.resolve(latest); }
      return withTimeout(new Promise((resolve, reject) => waiters.push({ predicate, resolve, reject })), ms, 'snapshot: ' + what);
    },
    stop: unsubscribe,
  };
}

async function main() {
  const appMod = await import(`./sdk/${version}/firebase-app.js`);
  const fs = await import(`./sdk/${version}/firebase-firestore.js`);
  if (params.get('debug')) fs.setLogLevel('debug');
  const settings = mode === 'longpoll' ? { experimentalForceLongPolling: true }
                 : mode === 'autodetect-off' ? { experimentalAutoDetectLongPolling: false } : {};
  function client(name) {
    const app = appMod.initializeApp({ projectId: 'demo-test', apiKey: 'fake', appId: 'harness' }, name);
    const db = fs.initializeFirestore(app, settings);
    fs.connectFirestoreEmulator(db, '127.0.0.1', port);
    return db;
  }
  const db = client('a');
  const other = client('b');
  const {
    doc, collection, setDoc, getDoc, getDocs, updateDoc, deleteDoc, deleteField, query, where, orderBy,
    limit, limitToLast, startAfter, endBefore, getCountFromServer, writeBatch, runTransaction, increment,
    serverTimestamp, arrayUnion, arrayRemove, onSnapshot, terminate, Timestamp, GeoPoint, Bytes,
    getDocFromServer,
  } = fs;
  const c = name => collection(db, `${run}-${name}`);
  const cOther = name => collection(other, `${run}-${name}`);

  // On a fresh server this is the first request: nothing has been committed yet.
  await check('a missing document and an empty query', async () => {
    assert(!(await getDocFromServer(doc(c('fresh'), 'none'))).exists(), 'a missing document exists');
    assert((await getDocs(c('fresh'))).empty, 'an empty collection has documents');
  });

  await check('setDoc/getDoc of every value type', async () => {
    const ref = doc(c('types'), 'all');
    const value = {
      nul: null, yes: true, no: false, int: 42, neg: -7, big: 9007199254740991, dbl: 3.25, nan: NaN,
      inf: Infinity, ninf: -Infinity, str: 'hello é☃😀', empty: '', bytes: Bytes.fromUint8Array(new Uint8Array([0, 1, 2, 255])),
      ts: new Timestamp(1700000000, 123456000), geo: new GeoPoint(1.5, -2.25), ref: doc(db, 'other/x'),
      arr: [1, 'two', [3].length, { four: 4 }], map: { a: { b: { c: 'deep' } }, list: [true, null] },
    };
    await setDoc(ref, value);
    const snap = await getDocFromServer(ref);
    assert(snap.exists(), 'document missing');
    const d = snap.data();
    assert(d.nul === null && d.yes === true && d.no === false, 'null/bool');
    assert(d.int === 42 && d.neg === -7 && d.big === 9007199254740991 && d.dbl === 3.25, 'numbers');
    assert(Number.isNaN(d.nan) && d.inf === Infinity && d.ninf === -Infinity, 'NaN/infinities');
    assert(d.str === 'hello é☃😀' && d.empty === '', 'strings');
    same(Array.from(d.bytes.toUint8Array()), [0, 1, 2, 255], 'bytes');
    assert(d.ts.seconds === 1700000000 && d.ts.nanoseconds === 123456000, 'timestamp ' + d.ts.seconds + '.' + d.ts.nanoseconds);
    assert(d.geo.latitude === 1.5 && d.geo.longitude === -2.25, 'geopoint');
    assert(d.ref.path === 'other/x', 'reference ' + d.ref.path);
    same(d.arr, [1, 'two', 1, { four: 4 }], 'array');
    same(d.map, { a: { b: { c: 'deep' } }, list: [true, null] }, 'map');
    const cached = await getDoc(ref);
    assert(cached.get('map.a.b.c') === 'deep', 'getDoc');
  });

  await check('updateDoc and merges', async () => {
    const ref = doc(c('upd'), 'u');
    await setDoc(ref, { a: 1, m: { x: 1, y: 2 }, gone: true });
    await updateDoc(ref, { a: 2, 'm.y': 3, 'm.z': 4, gone: deleteField() });
    same((await getDocFromServer(ref)).data(), { a: 2, m: { x: 1, y: 3, z: 4 } }, 'after update');
    await setDoc(ref, { m: { w: 0 }, b: 'merged' }, { merge: true });
    same((await getDocFromServer(ref)).data(), { a: 2, b: 'merged', m: { w: 0, x: 1, y: 3, z: 4 } }, 'after merge');
    let failed = null;
    try { await updateDoc(doc(c('upd'), 'missing'), { a: 1 }); } catch (e) { failed = e; }
    assert(failed && failed.code === 'not-found', 'update of a missing document: ' + (failed && failed.code));
    await updateDoc(ref, { a: 3 });  // the Write stream works again after the error
    assert((await getDocFromServer(ref)).get('a') === 3, 'write after error');
  });

  await check('queries: filters, order, limits, cursors', async () => {
    const col = c('q');
    const b = writeBatch(db);
    for (let i = 0; i < 10; i++) b.set(doc(col, 'd' + i), { n: i, even: i % 2 === 0, tags: i < 3 ? ['low'] : ['high'] });
    await b.commit();
    const names = s => s.docs.map(d => d.id);
    same(names(await getDocs(query(col, where('n', '>=', 7)))), ['d7', 'd8', 'd9'], 'where >=');
    same(names(await getDocs(query(col, where('even', '==', true), orderBy('n', 'desc'), limit(2)))), ['d8', 'd6'], 'where/order/limit');
    same(names(await getDocs(query(col, orderBy('n'), limitToLast(2)))), ['d8', 'd9'], 'limitToLast');
    same(names(await getDocs(query(col, orderBy('n'), startAfter(4), endBefore(7)))), ['d5', 'd6'], 'cursors');
    same(names(await getDocs(query(col, where('tags', 'array-contains', 'low'), orderBy('n')))), ['d0', 'd1', 'd2'], 'array-contains');
    same(names(await getDocs(query(col, where('n', 'in', [1, 9])))), ['d1', 'd9'], 'in');
  });

  await check('getCountFromServer', async () => {
    const snap = await getCountFromServer(query(c('q'), where('n', '<', 4)));
    assert(snap.data().count === 4, 'count ' + snap.data().count);
  });

  await check('batches are atomic', async () => {
    const col = c('batch');
    const b = writeBatch(db);
    b.set(doc(col, 'a'), { v: 1 });
    b.set(doc(col, 'b'), { v: 2 });
    b.delete(doc(col, 'nothing'));
    await b.commit();
    assert((await getDocs(col)).size === 2, 'batch applied');
    const bad = writeBatch(db);
    bad.set(doc(col, 'c'), { v: 3 });
    bad.update(doc(col, 'missing'), { v: 4 });
    let failed = null;
    try { await bad.commit(); } catch (e) { failed = e; }
    assert(failed && failed.code === 'not-found', 'failing batch: ' + (failed && failed.code));
    assert(!(await getDocFromServer(doc(col, 'c'))).exists(), 'part of a failed batch was applied');
  });

  await check('runTransaction with contention between two clients', async () => {
    const ref = doc(c('tx'), 'counter'), refOther = doc(cOther('tx'), 'counter');
    await setDoc(ref, { n: 0 });
    let attempts = 0;
    const bump = (database, r) => runTransaction(database, async t => {
      attempts++;
      const s = await t.get(r);
      await new Promise(res => setTimeout(res, 20));
      t.update(r, { n: s.get('n') + 1 });
    });
    const jobs = [];
    for (let i = 0; i < 4; i++) { jobs.push(bump(db, ref)); jobs.push(bump(other, refOther)); }
    await Promise.all(jobs);
    const n = (await getDocFromServer(ref)).get('n');
    assert(n === 8, 'counter ' + n);
    assert(attempts > 8, 'no contention happened (' + attempts + ' attempts)');
  });

  await check('increment, serverTimestamp, arrayUnion, arrayRemove', async () => {
    const ref = doc(c('tf'), 't');
    await setDoc(ref, { n: 1, list: [1, 2, 3] });
    const before = Date.now();
    await updateDoc(ref, { n: increment(5), at: serverTimestamp(), list: arrayUnion(3, 4) });
    await updateDoc(ref, { list: arrayRemove(1) });
    const d = (await getDocFromServer(ref)).data();
    assert(d.n === 6, 'increment ' + d.n);
    same(d.list, [2, 3, 4], 'arrays');
    assert(Math.abs(d.at.toMillis() - before) < 60000, 'serverTimestamp ' + d.at.toMillis());
  });

  await check('onSnapshot on a query sees adds, modifications, re-orders, removals, deletes', async () => {
    const col = c('live'), colOther = cOther('live');
    await setDoc(doc(col, 'a'), { x: 1 });
    await setDoc(doc(col, 'b'), { x: 2 });
    const q = query(col, where('x', '>=', 0), orderBy('x'));
    const ids = s => s.docs.map(d => d.id).join(',');
    const w = watch((next, error) => onSnapshot(q, next, error));
    await w.until(s => ids(s) === 'a,b', 'initial');
    await setDoc(doc(colOther, 'c'), { x: 3 });
    await w.until(s => ids(s) === 'a,b,c', 'add');
    await updateDoc(doc(colOther, 'a'), { x: 10 });
    await w.until(s => ids(s) === 'b,c,a' && s.docs[2].get('x') === 10, 'modify/re-order');
    await updateDoc(doc(colOther, 'b'), { x: -1 });
    await w.until(s => ids(s) === 'c,a', 'stop matching');
    await deleteDoc(doc(colOther, 'c'));
    await w.until(s => ids(s) === 'a', 'delete');
    w.stop();
  });

  await check('onSnapshot on a document sees changes and deletes', async () => {
    const ref = doc(c('live'), 'solo'), refOther = doc(cOther('live'), 'solo');
    const w = watch((next, error) => onSnapshot(ref, next, error));
    await w.until(s => !s.exists(), 'missing at first');
    await setDoc(refOther, { v: 1 });
    await w.until(s => s.exists() && s.get('v') === 1, 'created');
    await updateDoc(refOther, { v: 2 });
    await w.until(s => s.get('v') === 2, 'changed');
    await deleteDoc(refOther);
    await w.until(s => !s.exists(), 'deleted');
    w.stop();
  });

  await check('10,000 documents arrive whole in one snapshot', async () => {
    const col = c('big');
    const writes = [];
    for (let b = 0; b < 20; b++) {
      const batch = writeBatch(db);
      for (let i = 0; i < 500; i++) batch.set(doc(col, 'd' + (b * 500 + i)), { i: b * 500 + i, s: 'text é' });
      writes.push(batch.commit());
    }
    step = 'writing';
    await Promise.all(writes);
    step = 'listening';
    // Another client has none of them cached: its first snapshot is the server's result.
    const w = watch((next, error) => onSnapshot(query(cOther('big')), next, error));
    const snap = await w.until(s => !s.metadata.fromCache, 'server snapshot', 110000);
    w.stop();
    assert(snap.size === 10000, 'size ' + snap.size);
  }, 120000);

  await check('terminate', async () => {
    await terminate(other);
    await terminate(db);
    let failed = null;
    try { await getDoc(doc(c('types'), 'all')); } catch (e) { failed = e; }
    assert(failed, 'a terminated client still answered');
  });

  await check('the back channels used the mode asked for', async () => {
    const gets = performance.getEntriesByType('resource').map(e => e.name).filter(u => u.includes('/channel?') && u.includes('RID=rpc'));
    const streaming = gets.filter(u => u.includes('CI=0')).length, polling = gets.filter(u => u.includes('CI=1')).length;
    const detail = `${gets.length} back-channel GETs: CI=0 ${streaming}, CI=1 ${polling}`;
    // By default the SDK starts streaming and falls back to long polling when the first
    // bytes of a back channel take longer than twice the handshake's round trip (a few
    // milliseconds on loopback): either is right there.
    if (mode === 'longpoll') assert(polling > 0 && streaming === 0, detail);
    else if (mode === 'autodetect-off') assert(streaming > 0 && polling === 0, detail);
    else assert(streaming > 0, detail);
    log('back channels: ' + detail, true);
  });

  // After the first two clients ended: a browser holds at most six HTTP/1.1 connections to
  // a host, and every live stream keeps one open with its back channel.
  await check('mockUserToken reaches the rules', async () => {
    const rules = "rules_version = '2'; service cloud.firestore { match /databases/{db}/documents { " +
      'match /mine/{id} { allow read, write: if request.auth != null && request.auth.uid == id; } } }';
    const put = await fetch(`http://127.0.0.1:${port}/emulator/v1/projects/demo-auth:securityRules`, {
      method: 'PUT', body: JSON.stringify({ rules: { files: [{ name: 'firestore.rules', content: rules }] } }),
    });
    assert(put.ok, 'loading rules: ' + put.status);
    const app = appMod.initializeApp({ projectId: 'demo-auth', apiKey: 'fake', appId: 'harness' }, 'alice');
    const alice = fs.initializeFirestore(app, settings);
    fs.connectFirestoreEmulator(alice, '127.0.0.1', port, { mockUserToken: { sub: 'alice', user_id: 'alice' } });
    const anonApp = appMod.initializeApp({ projectId: 'demo-auth', apiKey: 'fake', appId: 'harness' }, 'anon');
    const anon = fs.initializeFirestore(anonApp, settings);
    fs.connectFirestoreEmulator(anon, '127.0.0.1', port);
    step = 'alice writes';
    await setDoc(doc(alice, 'mine/alice'), { v: 1 });
    step = 'alice reads';
    assert((await getDocFromServer(doc(alice, 'mine/alice'))).get('v') === 1, 'alice reads her document');
    const denied = async (what, body) => {
      step = what;
      let failed = null;
      try { await body(); } catch (e) { failed = e; }
      assert(failed && failed.code === 'permission-denied', what + ': ' + (failed && failed.code));
    };
    await denied('alice writes bob', () => setDoc(doc(alice, 'mine/bob'), { v: 1 }));
    await denied('anonymous writes alice', () => setDoc(doc(anon, 'mine/alice'), { v: 2 }));
    await denied('anonymous listens to alice', () => new Promise((resolve, reject) => {
      const unsub = onSnapshot(doc(anon, 'mine/alice'), () => {}, e => { unsub(); reject(e); });
    }));
    step = 'terminate';
    await terminate(alice);
    await terminate(anon);
  });

  // Injected faults (docs/faults.md), set through the emulator endpoint: the Listen channel
  // cut (an error message on its back channel, then a reset that forgets the session) and
  // the SDK reconnecting; a write sent while the Write stream fails, arriving once.
  await check('faults: Listen channel cut and reset, writes through a failing Write stream', async () => {
    const project = 'demo-faults-web';
    const faults = `http://127.0.0.1:${port}/emulator/v1/projects/${project}/faults`;
    const inject = async rule => {
      const r = await fetch(faults, { method: 'POST', body: JSON.stringify(rule) });
      assert(r.ok, 'POST faults: ' + r.status);
    };
    const left = async () => (await (await fetch(faults)).json()).faults.length;
    const app = appMod.initializeApp({ projectId: project, apiKey: 'fake', appId: 'harness' }, 'faults');
    const f = fs.initializeFirestore(app, settings);
    fs.connectFirestoreEmulator(f, '127.0.0.1', port);
    const col = collection(f, `${run}-faults`);
    await setDoc(doc(col, 'a'), { n: 0 });
    const w = watch((next, err) => onSnapshot(col, { includeMetadataChanges: true }, next, err));
    await w.until(s => s.size === 1 && !s.metadata.fromCache, 'first snapshot');

    // A Listen request (a second target) meets dropAfter 0: the back channel ends with
    // UNAVAILABLE, the SDK opens a new channel and adds both targets again.
    step = 'dropAfter';
    await inject({ method: 'Listen', dropAfter: 0, once: true });
    const second = watch((next, err) => onSnapshot(doc(col, 'b'), { includeMetadataChanges: true }, next, err));
    await second.until(s => !s.exists() && !s.metadata.fromCache, 'the second target, from the server, after the drop');
    assert(await left() === 0, 'the drop fault did not fire');
    await setDoc(doc(col, 'b'), { n: 1 });
    await w.until(s => s.size === 2 && !s.metadata.fromCache, 'a write after the drop, seen by the first listener');

    // A reset: the back channel's connection is cut and the session forgotten.
    step = 'reset';
    await inject({ method: 'Listen', reset: true, once: true });
    const third = watch((next, err) => onSnapshot(doc(col, 'c'), { includeMetadataChanges: true }, next, err));
    await third.until(s => !s.exists() && !s.metadata.fromCache, 'the third target, from the server, after the reset');
    assert(await left() === 0, 'the reset fault did not fire');
    await setDoc(doc(col, 'c'), { n: 2 });
    await w.until(s => s.size === 3 && !s.metadata.fromCache, 'a write after the reset');

    // A write made while the Write stream fails (two UNAVAILABLEs, then a reset): it stays
    // pending (the listener shows it with hasPendingWrites), is sent again once the stream
    // is back, and the increment lands once.
    step = 'write';
    await inject({ method: 'Write', error: 'UNAVAILABLE', times: 2 });
    await inject({ method: 'Write', reset: true, once: true });
    await updateDoc(doc(col, 'a'), { n: increment(1) });
    assert(await left() === 0, 'the Write faults did not all fire');
    same((await getDocFromServer(doc(col, 'a'))).data(), { n: 1 }, 'the increment after the failing Write stream');
    await w.until(s => !s.metadata.hasPendingWrites && s.docs.find(d => d.id === 'a').get('n') === 1, 'the write confirmed');
    w.stop(); second.stop(); third.stop();
    await terminate(f);
  }, 60000);
}

main().catch(e => log('load', false, (e && e.stack) || e)).finally(() => { window.__done = true; });
