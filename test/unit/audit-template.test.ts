import { describe, expect, it } from 'vitest';
import { parseTemplate, TemplateError } from '../../internal/audit/template';

/** The Go text/template subset of the audit webhook templates: what renders, and what is refused when read. */

const event = {
  version: '0.2',
  type: 'flag',
  action: 'updated',
  status: 'success',
  metadata: { actor: { authentication: 'token', name: 'alice "the admin"' } },
  payload: { key: 'checkout-v2', enabled: true, rank: 3, tags: [] as string[] },
  before: null,
  timestamp: '2024-05-01T10:00:00Z',
};

const render = (source: string) => parseTemplate(source).render(event);

describe('audit templates', () => {
  it('looks fields up without regard to case, as Flipt\'s Go names and the JSON\'s both read', () => {
    expect(render('{{ .Type }}:{{ .type }}:{{ .Payload.key }}:{{ .Metadata.Actor.authentication }}')).toBe('flag:flag:checkout-v2:token');
  });

  it('prints strings as they are, numbers and booleans as JSON, what is missing as nothing', () => {
    expect(render('{{ .Payload.rank }} {{ .Payload.enabled }} [{{ .Payload.nothing }}] [{{ .Before.key }}]')).toBe('3 true [] []');
  });

  it('toJson called or piped quotes what a JSON body needs quoted', () => {
    const body = render('{"who": {{ toJson .Metadata.Actor.name }}, "flag": {{ .Payload | toJson }}, "before": {{ toJson .Before }}}');
    expect(JSON.parse(body)).toEqual({ who: 'alice "the admin"', flag: event.payload, before: null });
    expect(render('{{ toJson . }}')).toBe(JSON.stringify(event));
  });

  it('trims with {{- and -}}, and drops comments', () => {
    expect(render('[\n  {{- .Type -}}\n  ]{{/* why */}}')).toBe('[flag]');
    expect(render('{{- /* only a comment */ -}}\n x')).toBe('x');
  });

  it('if / else if / else / end with Go\'s truth', () => {
    const t = '{{ if .Payload.tags }}tags{{ else if .Before }}before{{ else if .Payload.enabled }}on{{ else }}off{{ end }}';
    expect(render(t)).toBe('on');
    expect(parseTemplate(t).render({ payload: { enabled: false } })).toBe('off');
    expect(parseTemplate(t).render({ payload: { tags: ['a'] } })).toBe('tags');
    expect(render('{{if .Payload.rank}}{{ .Payload.rank }}{{end}}')).toBe('3');
  });

  it('string literals, with a | inside them', () => {
    expect(render('{{ "a|b" }} {{ toJson "x\\"y" }}')).toBe('a|b "x\\"y"');
  });

  it.each([
    ['{{ range .Payload.tags }}x{{ end }}', /line 1, column 1: \{\{ range \}\} is not supported/],
    ['{{ printf "%s" .Type }}', /unknown function or value "printf"/],
    ['{{ $x := .Type }}', /variables \(\$x\) are not supported/],
    ['{{ .Type | upper }}', /only toJson can follow \|/],
    ['{{ toJson .A .B }}', /toJson takes one argument/],
    ['{\n  "a": {{ .Type }\n}', /line 2, column 8: an action opened with \{\{ is never closed/],
    ['{{ if .Type }}open', /\{\{ if \}\} is never closed with \{\{ end \}\}/],
    ['x{{ end }}', /\{\{ end \}\} without a matching \{\{ if \}\}/],
    ['{{ }}', /an empty action/],
    ['{{ (.Type) }}', /parentheses are not supported/],
  ])('refuses %j when read', (source, message) => {
    expect(() => parseTemplate(source)).toThrow(TemplateError);
    expect(() => parseTemplate(source)).toThrow(message);
  });
});
