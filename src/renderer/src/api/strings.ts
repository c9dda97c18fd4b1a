import { defineStrings } from '../i18n/define-strings';

/** Messages of failed calls that are ours, not the node's (the node's own messages are shown as it sent them). */
export const useApiStrings = defineStrings({
  en: {
    unreachable: (reason: string) => `The store node did not answer (${reason}).`,
    httpStatus: (status: number) => `The node answered HTTP ${status}.`,
    notJson: 'The node answered with something that is not JSON.',
    unexpectedHealth: 'The node answered /health with an unexpected shape.',
  },
  es: {
    unreachable: (reason: string) => `El nodo de la tienda no respondió (${reason}).`,
    httpStatus: (status: number) => `El nodo respondió HTTP ${status}.`,
    notJson: 'El nodo respondió algo que no es JSON.',
    unexpectedHealth: 'El nodo respondió a /health con una forma inesperada.',
  },
});
