/** The local Slack page's stylesheet: Slack's layout and colours, roughly. */
export const PAGE_STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.46668 -apple-system, "Segoe UI", "Helvetica Neue", Lato, Arial, sans-serif; color: #1d1c1d; background: #fff; }
#workspace { display: flex; min-height: 100vh; }
.sidebar { width: 240px; flex: none; background: #3f0e40; color: #cfc3cf; padding: 14px 0; position: sticky; top: 0; height: 100vh; }
.team { color: #fff; font-weight: 900; font-size: 18px; padding: 0 16px 4px; }
.sidebar-note { font-size: 12px; padding: 0 16px 14px; border-bottom: 1px solid #5d2c5d; }
.sidebar-title { font-size: 13px; padding: 14px 16px 4px; }
.channel-link { display: flex; justify-content: space-between; color: #fff; text-decoration: none; padding: 3px 16px; }
.channel-link:hover { background: #350d36; }
.count { font-size: 12px; color: #cfc3cf; }
.channels { flex: 1; min-width: 0; padding: 0 0 40px; }
.channel h2 { margin: 0; padding: 14px 20px; font-size: 18px; border-bottom: 1px solid #ddd; position: sticky; top: 0; background: #fff; z-index: 1; }
.conversation { padding: 4px 0; border-bottom: 1px solid #f0f0f0; }
.message { display: flex; gap: 8px; padding: 8px 20px; }
.message:hover { background: #f8f8f8; }
.avatar { width: 36px; height: 36px; border-radius: 4px; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; flex: none; }
.content { min-width: 0; flex: 1; }
.meta { display: flex; align-items: baseline; gap: 6px; }
.author { font-weight: 900; }
.badge { font-size: 10px; font-weight: 700; color: #616061; background: #e8e8e8; border-radius: 2px; padding: 0 3px; }
.time, .edited { font-size: 12px; color: #616061; }
.body { overflow-wrap: anywhere; }
.thread { margin-left: 64px; border-left: 2px solid #e8e8e8; }
.thread .message { padding-left: 12px; }
.thread-head { font-size: 13px; font-weight: 700; color: #1264a3; padding: 2px 12px; }
.block { margin: 4px 0; }
.section { display: flex; gap: 12px; }
.section-body { flex: 1; }
.fields { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; margin-top: 4px; }
.context { font-size: 12px; color: #616061; }
.context img.thumb { width: 16px; height: 16px; vertical-align: middle; }
.header { font-size: 18px; font-weight: 900; }
.divider { border: none; border-top: 1px solid #ddd; }
.button { font: inherit; font-size: 13px; font-weight: 700; padding: 2px 12px; border-radius: 4px; border: 1px solid #bbb; background: #fff; color: #1d1c1d; }
.button.danger { color: #e01e5a; border-color: #e01e5a; }
.button.primary { background: #007a5a; color: #fff; border-color: #007a5a; }
blockquote { margin: 4px 0; padding-left: 10px; border-left: 4px solid #ddd; color: #454245; }
pre.code { background: #f8f8f8; border: 1px solid #e1e1e1; border-radius: 4px; padding: 8px; margin: 4px 0; white-space: pre-wrap; font: 12px/1.5 Menlo, Monaco, Consolas, monospace; }
code { color: #c01343; background: #f6f6f6; border: 1px solid #e1e1e1; border-radius: 3px; padding: 0 3px; font: 12px Menlo, Monaco, Consolas, monospace; }
a { color: #1264a3; }
.mention { color: #1264a3; background: #e8f5fa; border-radius: 3px; padding: 0 2px; }
.file { display: inline-block; border: 1px solid #ddd; border-radius: 6px; padding: 6px 10px; margin: 4px 4px 0 0; text-decoration: none; color: #1d1c1d; }
.file span { color: #616061; font-size: 12px; }
.reaction { display: inline-block; border: 1px solid #ddd; border-radius: 12px; padding: 0 8px; font-size: 12px; margin: 4px 4px 0 0; background: #f8f8f8; }
.unsupported { color: #616061; font-style: italic; }
.empty { padding: 20px; color: #616061; }
.revision { padding: 8px 20px; font-size: 11px; color: #616061; }
#live { position: fixed; right: 12px; bottom: 8px; font-size: 12px; color: #616061; background: #fff; padding: 2px 8px; border-radius: 10px; border: 1px solid #ddd; }
#live.off { color: #e01e5a; border-color: #e01e5a; }
/* A phone: the channels above the conversation, one column, nothing wider than the screen. */
@media (max-width: 700px) {
  #workspace { flex-direction: column; }
  .sidebar { width: auto; height: auto; position: static; padding: 10px 0 4px; }
  .sidebar-note { padding-bottom: 8px; }
  .channel h2 { padding: 10px 12px; }
  .message { padding: 8px 12px; }
  .thread { margin-left: 16px; }
  .fields { grid-template-columns: 1fr; }
}
`;

/**
 * The page's only script: on each change event, fetch the workspace again and swap it in,
 * staying at the bottom when the reader was there (as Slack follows a conversation).
 */
export const PAGE_SCRIPT = `
(function () {
  var live = document.createElement('div');
  live.id = 'live';
  live.textContent = 'live';
  document.body.appendChild(live);
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    var atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 60;
    fetch('/_local/view', { cache: 'no-store' })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        document.getElementById('workspace').innerHTML = html;
        if (atBottom) window.scrollTo(0, document.body.scrollHeight);
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var events = new EventSource('/_local/stream');
  events.onmessage = function () { live.textContent = 'live'; live.className = ''; refresh(); };
  events.onerror = function () { live.textContent = 'disconnected: retrying'; live.className = 'off'; };
})();
`;
