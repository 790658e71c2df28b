module github.com/rrmcp/rrmcp

go 1.26.8

require (
	github.com/go-delve/delve v1.27.2
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/mark3labs/mcp-go v1.2.1
	golang.org/x/arch v0.32.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.40.0 // indirect
)
