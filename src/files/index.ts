// Reading the files a user names (schemas, keys, configuration) with a bound on their size, so a wrong path
// (a device, a huge file) is a clear error instead of a hang or an exhausted memory. Used by the command line
// and the service.
export { FileReadError, MAX_SCHEMA_FILE_BYTES, readBounded, readBoundedText } from './read-file.ts';
