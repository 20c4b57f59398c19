package clientconfig

import "testing"

func TestPaths(t *testing.T) {
	unix := newPather(Env{Home: "/home/a", Dir: "/home/a/proj", OS: "linux"}, "/home/a/proj")
	win := newPather(Env{Home: `C:\Users\A`, Dir: `C:\Users\A\proj`, OS: "windows"}, "")
	cases := []struct {
		p       pather
		in, out string
		outside bool
	}{
		{unix, "/home/a/proj/data", "{workspace}/data", false},
		{unix, "/home/a/proj", "{workspace}", false},
		{unix, "/home/a/Desktop", "{home}/Desktop", false},
		{unix, "/home/a", "{home}", false},
		{unix, "/home/alice/x", "/home/alice/x", true}, // a prefix of the name is not the home
		{unix, "~/notes", "{home}/notes", false},
		{unix, "${HOME}/notes", "{home}/notes", false},
		{unix, "$HOME/notes", "{home}/notes", false},
		{unix, "${workspaceFolder}/src", "{workspace}/src", false},
		{unix, "${userHome}/.config/x", "{home}/.config/x", false},
		{unix, "./data", "{workspace}/data", false},
		{unix, "../other", "{home}/other", false},
		{unix, ".", "{workspace}", false},
		{unix, "--root=/home/a/proj/src", "--root={workspace}/src", false},
		{unix, "/var/lib/data", "/var/lib/data", true},
		{unix, "--verbose", "--verbose", false},
		{unix, "https://api.example/x", "https://api.example/x", false},
		{unix, "UTC", "UTC", false},
		{win, `C:\Users\A\Desktop`, "{home}/Desktop", false},
		{win, `c:\users\a\proj\db.sqlite`, "{workspace}/db.sqlite", false},
		{win, `%USERPROFILE%\notes`, "{home}/notes", false},
		{win, `.\rel`, `.\rel`, false}, // relative without a known directory
	}
	for _, c := range cases {
		out, outside := c.p.arg(c.in)
		if out != c.out || outside != c.outside {
			t.Errorf("arg(%q) = %q, %v; want %q, %v", c.in, out, outside, c.out, c.outside)
		}
	}
}
