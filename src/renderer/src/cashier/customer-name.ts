/** "Ana López"; a guest without names shows as the fallback (their email or "Guest"). */
export function fullName(user: { first_name: string; last_name: string }, fallback = ''): string {
  const name = `${user.first_name} ${user.last_name}`.trim();
  return name || fallback;
}
