/** Languages customers can choose; the legacy interface refers to them by integer id. */
export const LANGUAGES = [
  { id: 1, code: 'en', name: 'English' },
  { id: 2, code: 'es', name: 'Español' },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]['code'];

export function languageById(id: number) {
  return LANGUAGES.find((l) => l.id === id);
}

export function languageByCode(code: string | null | undefined) {
  return LANGUAGES.find((l) => l.code === code);
}
