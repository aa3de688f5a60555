/**
 * Whether a process with this pid exists (signal 0 checks without signalling). EPERM: it exists
 * but belongs to someone else. Pids of 0 and below address process groups, so they are not asked.
 */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
