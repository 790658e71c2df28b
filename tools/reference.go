package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Reference writes the Markdown tool reference (docs/TOOLS.md) generated
// from what s registers: every tool's description, annotations, input
// arguments with types, defaults and constraints, and output fields; then
// the resources, resource templates and prompts. `make docs` writes it;
// TestToolReference fails when the committed file differs.
// It asks s over an in-process MCP client, so it documents exactly what a
// client lists.
func Reference(ctx context.Context, w io.Writer, s *server.MCPServer) error {
	c, err := client.NewInProcessClient(s)
	if err != nil {
		return fmt.Errorf("in-process client: %w", err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start in-process client: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "rrmcp-reference", Version: Version}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	rl, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		return fmt.Errorf("resources/templates/list: %w", err)
	}
	pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}

	var b strings.Builder
	b.WriteString("# rrmcp tool reference\n\n")
	b.WriteString("Generated from the tool schemas the server registers (`make docs`); do not edit by hand.\n")
	b.WriteString("Every tool returns structured content matching its output schema plus a short text; bad input is a tool error (`isError`).\n\n")

	tools := map[string]mcp.Tool{}
	names := make([]string, 0, len(tl.Tools))
	for _, t := range tl.Tools {
		tools[t.Name] = t
		names = append(names, t.Name)
	}
	sort.Strings(names)
	b.WriteString("| tool | title | read-only | idempotent |\n|---|---|---|---|\n")
	for _, n := range names {
		t := tools[n]
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", n, n, t.Annotations.Title,
			yesNo(t.Annotations.ReadOnlyHint), yesNo(t.Annotations.IdempotentHint))
	}
	for _, n := range names {
		raw, err := json.Marshal(tools[n])
		if err != nil {
			return fmt.Errorf("marshal tool %s: %w", n, err)
		}
		var t struct {
			Description  string       `json:"description"`
			InputSchema  schemaObject `json:"inputSchema"`
			OutputSchema schemaObject `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("decode tool %s: %w", n, err)
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", n, strings.TrimSpace(t.Description))
		if len(t.InputSchema.Properties) == 0 {
			b.WriteString("No arguments.\n")
		} else {
			b.WriteString("| argument | type | required | description |\n|---|---|---|---|\n")
			t.InputSchema.rows(&b)
		}
		if len(t.OutputSchema.Properties) > 0 {
			b.WriteString("\nResult fields:\n\n| field | type | description |\n|---|---|---|\n")
			t.OutputSchema.outputRows(&b)
		}
	}

	if len(rl.Resources) > 0 {
		b.WriteString("\n# Resources\n\n| URI | name | description |\n|---|---|---|\n")
		sort.Slice(rl.Resources, func(i, j int) bool { return rl.Resources[i].URI < rl.Resources[j].URI })
		for _, r := range rl.Resources {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.URI, r.Name, cell(r.Description))
		}
	}
	if len(tmpl.ResourceTemplates) > 0 {
		b.WriteString("\n# Resource templates\n\n| URI template | name | description |\n|---|---|---|\n")
		sort.Slice(tmpl.ResourceTemplates, func(i, j int) bool {
			return tmpl.ResourceTemplates[i].Name < tmpl.ResourceTemplates[j].Name
		})
		for _, t := range tmpl.ResourceTemplates {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", t.URITemplate.Raw(), t.Name, cell(t.Description))
		}
	}
	if len(pl.Prompts) > 0 {
		b.WriteString("\n# Prompts\n\n| prompt | arguments | description |\n|---|---|---|\n")
		sort.Slice(pl.Prompts, func(i, j int) bool { return pl.Prompts[i].Name < pl.Prompts[j].Name })
		for _, p := range pl.Prompts {
			var args []string
			for _, a := range p.Arguments {
				s := "`" + a.Name + "`"
				if a.Required {
					s += " (required)"
				}
				args = append(args, s)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, strings.Join(args, ", "), cell(p.Description))
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// schemaObject is the part of a JSON schema the reference prints.
type schemaObject struct {
	Properties map[string]schemaProp   `json:"properties"`
	Required   []string                `json:"required"`
	Defs       map[string]schemaObject `json:"$defs"`
}

type schemaProp struct {
	Type        any                   `json:"type"`
	Description string                `json:"description"`
	Default     any                   `json:"default"`
	Enum        []any                 `json:"enum"`
	Minimum     *float64              `json:"minimum"`
	Maximum     *float64              `json:"maximum"`
	Items       *schemaProp           `json:"items"`
	Properties  map[string]schemaProp `json:"properties"`
	Ref         string                `json:"$ref"`
}

func (o schemaObject) sortedNames() []string {
	names := make([]string, 0, len(o.Properties))
	for n := range o.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (o schemaObject) rows(b *strings.Builder) {
	req := map[string]bool{}
	for _, r := range o.Required {
		req[r] = true
	}
	for _, n := range o.sortedNames() {
		p := o.Properties[n]
		desc := p.Description
		if p.Default != nil {
			desc += fmt.Sprintf(" Default: `%v`.", compactJSON(p.Default))
		}
		if len(p.Enum) > 0 {
			desc += fmt.Sprintf(" One of: `%s`.", compactJSON(p.Enum))
		}
		if p.Minimum != nil {
			desc += fmt.Sprintf(" Minimum %v.", *p.Minimum)
		}
		if p.Maximum != nil {
			desc += fmt.Sprintf(" Maximum %v.", *p.Maximum)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", n, p.typeName(), map[bool]string{true: "yes", false: "no"}[req[n]], cell(desc))
	}
}

func (o schemaObject) outputRows(b *strings.Builder) {
	o.fieldRows(b, "", o.Defs, 0)
}

// fieldRows lists o's fields, and the fields of nested objects (inline or
// by $ref into defs) as dotted names, down to a few levels.
func (o schemaObject) fieldRows(b *strings.Builder, prefix string, defs map[string]schemaObject, depth int) {
	for _, n := range o.sortedNames() {
		p := o.Properties[n]
		nested := schemaObject{Properties: p.Properties}
		if p.Items != nil {
			nested.Properties = p.Items.Properties
			if p.Items.Ref != "" {
				nested = defs[strings.TrimPrefix(p.Items.Ref, "#/$defs/")]
			}
		}
		if p.Ref != "" {
			nested = defs[strings.TrimPrefix(p.Ref, "#/$defs/")]
		}
		typ := p.typeName()
		if p.Ref != "" {
			typ = "object"
		}
		fmt.Fprintf(b, "| `%s%s` | %s | %s |\n", prefix, n, typ, cell(p.Description))
		if len(nested.Properties) > 0 && depth < 3 {
			sep := "."
			if p.Items != nil {
				sep = "[]."
			}
			nested.fieldRows(b, prefix+n+sep, defs, depth+1)
		}
	}
}

// typeName renders a schema type: "string", "array of integer", "object";
// a nullable type ("type": ["null", "array"]) prints without the null.
func (p schemaProp) typeName() string {
	var t string
	switch v := p.Type.(type) {
	case string:
		t = v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok && s != "null" {
				parts = append(parts, s)
			}
		}
		t = strings.Join(parts, " or ")
	}
	if t == "array" && p.Items != nil {
		return "array of " + p.Items.typeName()
	}
	if t == "" {
		return "any"
	}
	return t
}

// compactJSON is v as one-line JSON, for a table cell.
func compactJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}

// cell makes text safe for one Markdown table cell.
func cell(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	return strings.ReplaceAll(s, "|", `\|`)
}

func yesNo(b *bool) string {
	if b != nil && *b {
		return "yes"
	}
	return "no"
}
