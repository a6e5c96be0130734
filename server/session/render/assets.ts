/**
 * The session page's style and its one script. The page works without the script (links, forms,
 * collapsed details); the script adds live updates over server-sent events and keeps open
 * details open when a block is replaced.
 */
export const PAGE_STYLE = `
:root{--fg:#1d2329;--muted:#4f5a65;--bg:#fff;--panel:#f5f7f9;--line:#d5dbe1;--link:#0b57d0;--good:#0f6b2f;--bad:#a4161a;--warn:#7a4b00;--live:#0b57d0;--code:#f0f2f4}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
.page-head,main,footer{max-width:920px;margin:0 auto;padding:12px 16px}
.page-head{border-bottom:1px solid var(--line)}
.crumbs{margin:0;color:var(--muted);font-size:14px}
h1{font-size:22px;line-height:1.3;margin:4px 0 8px;overflow-wrap:anywhere}
h1 code{font-size:14px;display:block;color:var(--muted);font-weight:400}
h2{font-size:19px;margin:24px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:0 0 6px;display:flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.state{margin:4px 0}
.status-line{margin:4px 0;font-style:italic}
.steps{margin:8px 0;padding:8px 12px;border:1px solid var(--line);border-radius:8px;background:var(--panel)}
.steps ul{list-style:none;margin:0;padding:0}.steps li{margin:2px 0;overflow-wrap:anywhere}
.step-state{color:var(--muted);font-size:14px}.step-done .step-state{color:var(--good)}.step-failed .step-state{color:var(--bad)}.step-running .step-state{color:var(--live)}
.facts{display:grid;grid-template-columns:1fr;gap:2px 24px;margin:8px 0}
.facts div{display:flex;gap:8px;min-width:0}
.facts dt{flex:0 0 7.5em;color:var(--muted)}
.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
@media (min-width:720px){.facts{grid-template-columns:1fr 1fr}}
.badge{display:inline-block;font-size:13px;line-height:1.4;padding:0 8px;border-radius:10px;border:1px solid currentColor;font-weight:600;white-space:nowrap}
.badge.good{color:var(--good)}.badge.bad{color:var(--bad)}.badge.warn{color:var(--warn)}.badge.live{color:var(--live)}.badge.plain{color:var(--muted)}
.live-dot{display:inline-block;width:9px;height:9px;border-radius:50%;background:var(--live);margin-left:6px;vertical-align:middle}
@media (prefers-reduced-motion:no-preference){.live-dot{animation:pulse 1.6s ease-in-out infinite}}
@keyframes pulse{50%{opacity:.25}}
.item{border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:10px 0;background:var(--bg)}
.item.request{background:var(--panel)}
.item.steer{border-left:4px solid var(--live)}
.item.stop{border-left:4px solid var(--bad)}
.item.note{border-style:dashed;color:var(--muted)}
.turn.compaction,.turn.closing{background:var(--panel)}
.usage,.took,.muted,time{color:var(--muted);font-size:14px;font-weight:400}
.md{overflow-wrap:anywhere}.md p{margin:6px 0}.md :first-child{margin-top:0}
.md pre,pre{background:var(--code);padding:8px 10px;border-radius:6px;overflow:auto;font-size:13px;line-height:1.45;max-height:28em;white-space:pre-wrap;overflow-wrap:anywhere}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:0 3px;border-radius:3px}
pre code{background:none;padding:0}
blockquote{margin:6px 0;padding-left:10px;border-left:3px solid var(--line);color:var(--muted)}
.table{overflow-x:auto}table{border-collapse:collapse;font-size:14px}th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:normal;min-width:4.5em}
details.call{border-top:1px solid var(--line);padding:6px 0}
details.call>summary{cursor:pointer;list-style-position:outside;margin-left:18px;overflow-wrap:anywhere}
.tool{font-weight:600;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px}
.what{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;color:var(--muted)}
.io{margin:4px 0;font-size:14px;color:var(--muted)}
.error{color:var(--bad);overflow-wrap:anywhere}
.child{margin:8px 0 4px 12px;padding:6px 10px;border-left:3px solid var(--line)}
.files{padding-left:20px}
.diff-file>summary{cursor:pointer}
.diff .add{color:var(--good)}.diff .del{color:var(--bad)}.diff .hunk{color:var(--muted)}
.timeline{display:flex;flex-wrap:wrap;gap:6px;padding:0;list-style:none}
.timeline li{border:1px solid var(--line);border-radius:6px;padding:2px 8px;font-size:14px}
.timeline li.current{border-color:var(--live);font-weight:600}
.findings{padding-left:20px}.findings li{margin:4px 0}
form{margin:8px 0}
label{display:block;font-weight:600;margin:6px 0 4px}
textarea,input[type=text],input[type=password]{width:100%;font:inherit;padding:8px;border:1px solid var(--muted);border-radius:6px}
textarea{min-height:5em}
button{font:inherit;font-weight:600;padding:8px 16px;border-radius:6px;border:1px solid var(--link);background:var(--link);color:#fff;cursor:pointer;margin-top:6px}
button.danger{background:var(--bad);border-color:var(--bad)}
#notice:not(:empty){border:1px solid var(--live);border-radius:8px;padding:8px 12px;margin:8px 0;background:var(--panel)}
footer{color:var(--muted);font-size:14px;border-top:1px solid var(--line);margin-top:24px}
`;

/**
 * Live updates: one EventSource on the page's events URL. Each `update` names the blocks that
 * changed (replaced in place, or appended to their section) and the header; `end` says the
 * workflow closed. Forms post through fetch so the page stays where it is.
 */
export const PAGE_SCRIPT = `
(function(){
  var body=document.body, url=body.getAttribute('data-events'), live=document.getElementById('live');
  if(!url||!window.EventSource)return;
  function openKeys(el){var keys=[];el.querySelectorAll('details[open][data-key]').forEach(function(d){keys.push(d.getAttribute('data-key'))});return keys}
  function reopen(el,keys){keys.forEach(function(k){var d=el.querySelector('details[data-key="'+k+'"]');if(d)d.open=true})}
  function place(b){
    var old=document.getElementById(b.id), keys=old?openKeys(old):[];
    var tpl=document.createElement('template');tpl.innerHTML=b.html;var el=tpl.content.firstElementChild;if(!el)return;
    if(old){old.replaceWith(el)}else{var parent=document.getElementById(b.parent);if(!parent)return;var empty=parent.querySelector('.empty');if(empty)empty.remove();parent.appendChild(el);var sec=parent.closest('section');if(sec)sec.hidden=false}
    reopen(el,keys);
  }
  var source=new EventSource(url+(url.indexOf('?')<0?'?':'&')+'since='+encodeURIComponent(body.getAttribute('data-version')||''));
  source.addEventListener('update',function(e){
    var u=JSON.parse(e.data);body.setAttribute('data-version',u.version);
    if(u.header!==undefined){var h=document.getElementById('header-body');if(h)h.innerHTML=u.header}
    (u.blocks||[]).forEach(place);
    if(live)live.textContent='live · updated '+new Date().toLocaleTimeString();
  });
  source.addEventListener('end',function(){source.close();if(live)live.textContent='finished: nothing more will change';var a=document.getElementById('actions');if(a)a.hidden=true});
  source.onerror=function(){if(live)live.textContent='reconnecting…'};
  document.querySelectorAll('form[data-live]').forEach(function(form){
    form.addEventListener('submit',function(ev){
      ev.preventDefault();var notice=document.getElementById('notice');
      fetch(form.action,{method:'POST',body:new URLSearchParams(new FormData(form)),headers:{'accept':'application/json'},credentials:'same-origin'})
        .then(function(r){return r.json().then(function(j){return {ok:r.ok,j:j}})})
        .then(function(res){notice.textContent=res.j.message||(res.ok?'Sent.':'Refused.');if(res.ok)form.reset()})
        .catch(function(){notice.textContent='Could not send; try again.'});
    });
  });
})();
`;
