package gitrepo

import (
	"bytes"
	"os"
	"strconv"
)

// processStart returns when process pid started, in clock ticks after
// boot (field 22 of /proc/PID/stat), or "" when it cannot be read. A lock
// record names its process by ID and start, so that an ID the system gave
// to another process since does not keep a killed td's locks alive.
func processStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name, field 2, is in parentheses and may hold spaces
	// and parentheses itself: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ""
	}
	fields := bytes.Fields(data[i+1:])
	const starttime = 22 - 3 // fields counted after pid and comm
	if len(fields) <= starttime {
		return ""
	}
	return string(fields[starttime])
}
