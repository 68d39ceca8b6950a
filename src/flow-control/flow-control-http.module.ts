import { Module } from '@nestjs/common';
import { DrainController } from './drain.controller';
import { DrainService } from './drain.service';
import { PausesController } from './pauses.controller';
import { PausesService } from './pauses.service';

/** The REST routes of flow control: pauses (`/pauses`) and the drain (`/queue/drain`); mounted with the action routes. */
@Module({
  controllers: [PausesController, DrainController],
  providers: [PausesService, DrainService],
})
export class FlowControlHttpModule {}
