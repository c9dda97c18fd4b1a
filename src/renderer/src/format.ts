/** 93784 -> "1 d 2 h 3 min 4 s"; leading zero units are left out. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const parts: Array<[number, string]> = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'min'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([value]) => value > 0);
  if (first < 0) return '0 s';
  return parts
    .slice(first)
    .map(([value, unit]) => `${value} ${unit}`)
    .join(' ');
}
