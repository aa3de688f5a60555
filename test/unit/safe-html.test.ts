// The html tag escapes every interpolation that is not itself a fragment: pages are safe by
// construction, not because a reviewer checked each `${…}`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { html, joinHtml, trustedHtml } from '../../src/http/safe-html.ts';

describe('html tag', () => {
  it('escapes < > & " and \' in text', () => {
    const text = `<script>alert("x")</script> & 'y'`;
    assert.equal(
      html`<p>${text}</p>`.toString(),
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>',
    );
  });

  it('escapes attribute values so they cannot close either kind of quote', () => {
    const value = `" onmouseover="alert(1)' x='`;
    assert.equal(
      html`<input value="${value}"><a title='${value}'>`.toString(),
      `<input value="&quot; onmouseover=&quot;alert(1)&#39; x=&#39;"><a title='&quot; onmouseover=&quot;alert(1)&#39; x=&#39;'>`,
    );
  });

  it('keeps the literal parts as written and renders numbers', () => {
    assert.equal(
      html`<td class="n">${42}</td><td>${-1.5}</td>`.toString(),
      '<td class="n">42</td><td>-1.5</td>',
    );
  });

  it('inserts nested fragments as they are, escaping their own interpolations once', () => {
    const name = '<b>Ann</b>';
    const inner = html`<span class="who">${name}</span>`;
    assert.equal(
      html`<div>${inner}</div>`.toString(),
      '<div><span class="who">&lt;b&gt;Ann&lt;/b&gt;</span></div>',
    );
  });

  it('joins arrays of fragments and text with nothing between', () => {
    const items = ['a&b', '<c>'].map((item) => html`<li>${item}</li>`);
    assert.equal(html`<ul>${items}</ul>`.toString(), '<ul><li>a&amp;b</li><li>&lt;c&gt;</li></ul>');
    assert.equal(html`${['<', html`<br>`, ['>']]}`.toString(), '&lt;<br>&gt;');
  });

  it('renders null, undefined and false as nothing', () => {
    const missing: string | undefined = undefined;
    const off = false as boolean;
    assert.equal(html`[${null}${missing}${off && html`<b>on</b>`}]`.toString(), '[]');
    assert.equal(html`[${!off && html`<b>on</b>`}]`.toString(), '[<b>on</b>]');
  });

  it('joinHtml puts an escaped separator between parts', () => {
    assert.equal(joinHtml([html`<i>1</i>`, '<2>'], '\n').toString(), '<i>1</i>\n&lt;2&gt;');
    assert.equal(joinHtml([html`a`, html`b`], '<&>').toString(), 'a&lt;&amp;&gt;b');
  });

  it('trustedHtml passes a constant through unescaped', () => {
    const styles = trustedHtml('body{font-family:"Segoe UI"}');
    assert.equal(html`<style>${styles}</style>`.toString(), '<style>body{font-family:"Segoe UI"}</style>');
  });

  it('a look-alike object is not a fragment: it is escaped as text', () => {
    const forged = { toString: () => '<script>x</script>' } as unknown as string;
    assert.equal(html`${forged}`.toString(), '&lt;script&gt;x&lt;/script&gt;');
  });
});
