package ddblocal

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// loopbackSource is the Java program that starts DynamoDB Local on one address (LoopbackDynamoDBLocal.java).
//
//go:embed LoopbackDynamoDBLocal.java
var loopbackSource []byte

// loopbackMain is the program's class name.
const loopbackMain = "LoopbackDynamoDBLocal"

// classPath is the class path of DynamoDB Local in jarDir: its jar and every jar of DynamoDBLocal_lib.
func classPath(jarDir string) string {
	return filepath.Join(jarDir, "DynamoDBLocal.jar") + string(os.PathListSeparator) + filepath.Join(jarDir, "DynamoDBLocal_lib", "*")
}

// loopbackClasses returns a folder holding the compiled LoopbackDynamoDBLocal class for jarDir, compiling it on
// first use with the Java runtime's own compiler module (`java -m jdk.compiler/com.sun.tools.javac.Main`, part of
// every JDK) into cacheDir/loopback-<hash of source and jar folder>. Concurrent
// starts compile into temporary folders and the first rename wins. Errors: the compiler module is missing or the
// compilation fails (the compiler's output is quoted).
func loopbackClasses(java, jarDir, cacheDir string) (string, error) {
	sum := sha256.New()
	sum.Write(loopbackSource)
	sum.Write([]byte{0})
	sum.Write([]byte(jarDir))
	dir := filepath.Join(cacheDir, "loopback-"+hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, loopbackMain+".class")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("ddblocal: class cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "compile-")
	if err != nil {
		return "", fmt.Errorf("ddblocal: class cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, loopbackMain+".java")
	if err := os.WriteFile(src, loopbackSource, 0o644); err != nil {
		return "", fmt.Errorf("ddblocal: %w", err)
	}
	out := filepath.Join(tmp, "classes")
	cmd := exec.Command(java, "-m", "jdk.compiler/com.sun.tools.javac.Main", "-proc:none", "-nowarn",
		"-d", out, "-cp", classPath(jarDir), src)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("ddblocal: compiling the loopback launcher of DynamoDB Local needs the jdk.compiler module "+
			"of a JDK (e.g. Debian's openjdk-17-jdk-headless): %v: %s", err, b)
	}
	if err := os.Rename(out, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, loopbackMain+".class")); statErr == nil {
			return dir, nil // another start won the race
		}
		return "", fmt.Errorf("ddblocal: class cache: %w", err)
	}
	return dir, nil
}

// defaultCacheDir is where compiled classes are kept: the user's cache folder (os.UserCacheDir)/baton/ddblocal,
// or the system's temporary folder when there is none.
func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "baton", "ddblocal")
	}
	return filepath.Join(os.TempDir(), "baton-ddblocal")
}
