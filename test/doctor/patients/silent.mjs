// Not checkable: reads stdin forever and never writes a byte (a server stuck before its loop).
// Exits on EOF like a well-behaved process, so only the missing answer is wrong.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
