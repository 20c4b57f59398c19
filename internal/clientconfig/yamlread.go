package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// readContinueYAML reads Continue's config.yaml or a block file of
// .continue/mcpServers: mcpServers is a list of {name, type, command,
// args, env, url}. The YAML tree is turned into the JSON reader's values,
// lines kept, so both formats share one decoder.
func readContinueYAML(l Location, data []byte) (fileRead, *Problem) {
	var r fileRead
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return r, nil
		}
		line, msg := yamlError(err)
		return r, &Problem{Path: l.Path, Line: line, Message: "not valid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return r, nil
	}
	c := &yconv{}
	root, err := c.value(doc.Content[0], 0)
	if err != nil {
		return r, &Problem{Path: l.Path, Line: doc.Content[0].Line, Message: err.Error()}
	}
	if root.kind != jObject {
		return r, &Problem{Path: l.Path, Line: root.line, Message: "the file must be a mapping of settings"}
	}
	if s := root.get("mcpServers"); s != nil {
		r.readSection(l, section{key: "mcpServers", v: s})
	}
	return r, nil
}

// yamlError splits a YAML error into its line and message.
func yamlError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		_, rest, _ := strings.Cut(msg, ": ")
		return line, rest
	}
	return 0, msg
}

// yconv converts YAML nodes to JSON values, counting nodes (aliases
// included, so a file of nested aliases cannot multiply into millions).
type yconv struct{ nodes int }

func (c *yconv) value(n *yaml.Node, depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("line %d: values are nested more than %d deep", n.Line, maxDepth)
	}
	if c.nodes++; c.nodes > maxNodes {
		return nil, fmt.Errorf("the file has more than %d values", maxNodes)
	}
	v := &jvalue{line: n.Line}
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			v.kind = jNull
			return v, nil
		}
		return c.value(n.Content[0], depth)
	case yaml.MappingNode:
		v.kind = jObject
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			x, err := c.value(val, depth+1)
			if err != nil {
				return nil, err
			}
			v.obj = append(v.obj, jmember{key: k.Value, line: k.Line, val: x})
		}
	case yaml.SequenceNode:
		v.kind = jArray
		for _, item := range n.Content {
			x, err := c.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, x)
		}
	default:
		v.kind, v.str = jString, n.Value
		switch n.Tag {
		case "!!null":
			v.kind = jNull
		case "!!bool":
			v.kind, v.b = jBool, strings.EqualFold(n.Value, "true")
		case "!!int", "!!float":
			v.kind = jNumber
		}
	}
	return v, nil
}
