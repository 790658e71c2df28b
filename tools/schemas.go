package tools

import (
	_ "embed"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every tool's input and output schema, as reflection over its argument
// and result types gives them (mcp-go's WithInputSchema and
// WithOutputSchema), is kept in schemas.json: reading it costs about a
// millisecond where reflecting costs about 30 at every start of the
// server. TestSchemasFile checks that the file is what reflection gives
// now; `go test ./tools -run TestSchemasFile -update` writes it again
// after a change to a tool's types.
//
//go:embed schemas.json
var schemasFile []byte

// toolSchemas is a tool's entry in schemas.json: the input schema as
// the wire carries it, and the output schema likewise.
type toolSchemas struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// readSchemas decodes schemas.json; nil (every tool reflects) where it
// does not decode.
func readSchemas() map[string]toolSchemas {
	var m map[string]toolSchemas
	if err := json.Unmarshal(schemasFile, &m); err != nil {
		return nil
	}
	return m
}

// schemaOptions are the options that give tool name its schemas: from
// schemas.json where it has the tool, else by reflection over In and Out.
func schemaOptions[In, Out any](r *registry, name string) []mcp.ToolOption {
	if sc, ok := r.schemas[name]; ok {
		return []mcp.ToolOption{func(t *mcp.Tool) {
			t.InputSchema.Type = "" // the raw one stands for it
			t.RawInputSchema, t.RawOutputSchema = sc.Input, sc.Output
		}}
	}
	return []mcp.ToolOption{mcp.WithInputSchema[In](), mcp.WithOutputSchema[Out]()}
}
