// nnscope page boot: a classic script that the parser runs before anything
// else of the page loads. It starts what the first view needs at once:
//   - the modules of the shell and of the view (modulepreload) and the
//     chart library's build that the view loads (preload); the Trace view
//     draws on its own canvas, and the chart library (1 MB, ~120 ms of
//     compiling) is not fetched for it;
//   - for the Trace view: /api/runs, and as soon as it answers, the trace's
//     meta (/api/trace/meta) of the selection the shell will make of the
//     address (app.js resolveSelection: the named run, worker and span,
//     else the first ones), so that the server reads the trace while the
//     modules load.
// The answers wait in window.nnsBoot (URL -> promise of a Response) for
// app.js's api(), which takes each once instead of asking again. Like
// api()'s, the requests ask the server to hold them while the trace loads
// (X-Nnscope-Wait). A list here that goes stale costs only speed.
(function () {
  var q = new URLSearchParams(location.hash.replace(/^#/, ''));
  var view = q.get('view') || 'overview';
  var boot = (window.nnsBoot = {});
  // app.js's own imports, then the view's
  var mods = ['lib/util.js', 'lib/charts.js', 'lib/schema.js', 'lib/keep.js', 'lib/live_alerts.js'].concat(
    view === 'trace'
      ? ['views/trace.js', 'trace/timeline.js', 'trace/format.js', 'trace/critpath.js', 'trace/msprof.js',
        'trace/layout.js', 'trace/draw.js']
      : ['lib/table.js'].concat(/^[a-z]+$/.test(view) ? ['views/' + view + '.js'] : []));
  function link(rel, href, as) {
    var l = document.createElement('link');
    l.rel = rel;
    l.href = '/static/' + href;
    if (as) l.as = as;
    document.head.appendChild(l);
  }
  // the answer to url, a clone kept for api() (this script may read the other)
  function ask(url) {
    var res = fetch(url, { headers: { Accept: 'application/json', 'X-Nnscope-Wait': '300' } });
    boot[url] = res.then(function (r) { return r.clone(); });
    boot[url].catch(function () { /* api() asks again */ });
    return res;
  }
  function named(list, name) {
    for (var i = 0; i < list.length; i++) if (list[i].name === name) return list[i];
    return null;
  }
  if (view !== 'trace') {
    mods.forEach(function (m) { link('modulepreload', m); });
    link('preload', view === 'module' ? 'vendor/echarts.min.js' : 'vendor/echarts.common.min.js', 'script');
    return;
  }
  // the runs first: the browser sends at most 6 requests at a time to the
  // server, and the module preloads below would go before them
  var runs = ask('/api/runs');
  mods.forEach(function (m) { link('modulepreload', m); });
  link('preload', 'trace/trace.css', 'style');
  runs.then(function (r) { return r.ok ? r.json() : null; }).then(function (doc) {
    var runs = (doc && doc.runs) || [];
    var run = named(runs, q.get('run')) || runs[0];
    var workers = (run && run.workers) || [];
    var w = named(workers, q.get('worker')) || workers[0];
    if (!w) return;
    var spans = w.spans || [];
    var span = spans.indexOf(q.get('span')) >= 0 ? q.get('span') : (spans[0] || '');
    // the Trace view's params() in the same order: run, worker, span, timeline
    var p = new URLSearchParams();
    p.set('run', run.name);
    p.set('worker', w.name);
    if (span) p.set('span', span);
    if (q.get('timeline')) p.set('timeline', q.get('timeline'));
    ask('/api/trace/meta?' + p);
  }).catch(function () { /* the shell asks */ });
})();
