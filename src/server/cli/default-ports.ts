/** Where a store node and a chain's central node listen unless told otherwise (--port). */
export const STORE_PORT = 4321;
export const CENTRAL_PORT = 4320;
