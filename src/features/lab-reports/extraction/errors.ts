// A file that is not what its first bytes claim, or too damaged to read: a terminal failure
// (`file_unreadable`), never retried.
export class UnreadableFileError extends Error {
  override name = 'UnreadableFileError';
}
