import type { Engine, VendorScope } from '../../engine';
import { loadProgramSettings, type ProgramSettingsRecord } from './program-settings';

export function getProgramSettings(engine: Engine, scope: VendorScope): Promise<ProgramSettingsRecord> {
  return loadProgramSettings(engine.db, scope.vendorId);
}
