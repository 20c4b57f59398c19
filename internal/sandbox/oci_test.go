package sandbox

import (
	"slices"
	"testing"
)

func TestPickUser(t *testing.T) {
	passwd := []byte("root:x:0:0:root:/root:/bin/bash\nbin:x:2:2::/bin:/usr/sbin/nologin\n" +
		"app:x:1500:1500::/srv:/bin/sh\nodd:x:1600:10::/x:/bin/sh\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n")
	for _, tc := range []struct {
		passwd     string
		configured string
		name       string
		uid        int
	}{
		{string(passwd), "", "app", 1500},
		{string(passwd), "root", "app", 1500},       // root is never chosen
		{string(passwd), "nobody", "nobody", 65534}, // the image's USER, by name
		{string(passwd), "65534:65534", "nobody", 65534},
		{string(passwd), "odd", "app", 1500}, // gid differs from uid: not usable
		{"root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n", "", "nobody", 65534},
	} {
		name, uid, err := pickUser([]byte(tc.passwd), tc.configured)
		if err != nil || name != tc.name || uid != tc.uid {
			t.Errorf("configured %q: %s %d %v, want %s %d", tc.configured, name, uid, err, tc.name, tc.uid)
		}
	}
	if _, _, err := pickUser([]byte("root:x:0:0::/:/bin/sh\n"), ""); err == nil {
		t.Error("a passwd with only root gave a user")
	}
}

func TestToolArgv(t *testing.T) {
	got, err := ToolArgv(ToolsPath+"/tar", []string{"-x", "-C", "/home/dev"})
	want := []string{ToolsLoader, "--library-path", ToolsLib, "--argv0", "tar", ToolsBin + "/tar", "-x", "-C", "/home/dev"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("%q %v", got, err)
	}
	for _, bad := range []string{ToolsPath + "/bash", "/usr/bin/tar", ToolsPath + "/../bin/sh", "tar"} {
		if _, err := ToolArgv(bad, nil); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestOCIEntrypoint(t *testing.T) {
	spec := Spec{Image: "img", Cmd: []string{"node", "server.js"}, Tools: ToolsPath}
	cfg := containerConfig(spec, DefaultLimits, nil)
	if !slices.Equal(cfg.Entrypoint, []string{ToolsPath + "/sh", entryPath}) || !slices.Equal(cfg.Cmd, spec.Cmd) {
		t.Errorf("entrypoint %q cmd %q", cfg.Entrypoint, cfg.Cmd)
	}
	if !slices.Contains(cfg.Env, "MCP_AUDIT_TOOLS="+ToolsPath) {
		t.Errorf("env %q", cfg.Env)
	}
	spec.Tools = ""
	if cfg := containerConfig(spec, DefaultLimits, nil); len(cfg.Entrypoint) != 0 || cfg.Cmd[0] != "/bin/sh" {
		t.Errorf("npm sandbox changed: %q %q", cfg.Entrypoint, cfg.Cmd)
	}
}
